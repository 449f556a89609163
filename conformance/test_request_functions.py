"""The sample's callable and blocking functions, driven as the client SDKs drive them.

Requests are shaped like the web SDK's: a callable is a POST of {"data": ...} to
/{project}/{region}/{name} on the emulator with the user's ID token as a bearer token; sign-ups
and sign-ins go to the Auth emulator's REST API with an API key. firebase-admin reads back what
the functions wrote.
"""

import base64
import json
import os
import urllib.parse
import urllib.request
import uuid

import pytest
from firebase_admin import auth, db

from conftest import PROJECT

pytestmark = pytest.mark.skipif(os.environ.get("CONFORMANCE_DEPLOY", "1") == "0", reason="functions not deployed")


def call(emulator, method, path, body=None, headers=None, raw=None):
    """A client's HTTP call (no admin credentials); returns (status, parsed JSON or text, headers)."""
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(emulator.base + path, data=data, method=method)
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            status, text, found = response.status, response.read(), dict(response.headers)
    except urllib.error.HTTPError as error:
        status, text, found = error.code, error.read(), dict(error.headers)
    try:
        return status, json.loads(text) if text else None, found
    except ValueError:
        return status, text.decode(), found


def sign_up(emulator, email):
    return call(emulator, "POST", "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=fake-api-key",
                {"email": email, "password": "secret123", "returnSecureToken": True},
                {"Content-Type": "application/json"})


def claims(id_token):
    payload = id_token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def call_function(emulator, name, data, id_token=None, accept=None):
    headers = {"Content-Type": "application/json"}
    if id_token:
        headers["Authorization"] = f"Bearer {id_token}"
    if accept:
        headers["Accept"] = accept
    return call(emulator, "POST", f"/{PROJECT}/us-central1/{name}", {"data": data}, headers)


def test_a_disposable_sign_up_is_refused_and_nothing_is_created(app, emulator):
    email = f"{uuid.uuid4().hex[:8]}@mailinator.com"
    status, body, _ = sign_up(emulator, email)
    assert status == 400, body
    message = body["error"]["message"]
    assert message.startswith("BLOCKING_FUNCTION_ERROR_RESPONSE : ((HTTP request to "), message
    assert "returned HTTP error 403" in message and "disposable e-mail domains" in message, message
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user_by_email(email)


def test_an_allowed_sign_up_gets_the_claim_in_its_next_id_token(app, emulator):
    email = f"{uuid.uuid4().hex[:8]}@example.com"
    status, body, _ = sign_up(emulator, email)
    assert status == 200, body
    assert claims(body["idToken"])["role"] == "player"
    assert auth.get_user_by_email(email).custom_claims == {"role": "player"}
    status, signed_in, _ = call(emulator, "POST",
                                "/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=fake-api-key",
                                {"email": email, "password": "secret123", "returnSecureToken": True},
                                {"Content-Type": "application/json"})
    assert status == 200, signed_in
    assert claims(signed_in["idToken"])["role"] == "player"


def test_custom_token_from_firebase_admin_signs_in_through_the_blocking_function(app, emulator):
    uid = f"c{uuid.uuid4().hex[:8]}"
    token = auth.create_custom_token(uid, {"tier": "gold"}).decode()
    path = "/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken?key=fake-api-key"
    status, body, _ = call(emulator, "POST", path, {"token": token, "returnSecureToken": True},
                           {"Content-Type": "application/json"})
    assert status == 200, body
    assert body["isNewUser"] is True
    token_claims = claims(body["idToken"])
    assert token_claims["sub"] == uid and token_claims["tier"] == "gold" and token_claims["role"] == "player"
    assert auth.get_user(uid).custom_claims == {"role": "player"}
    status, again, _ = call(emulator, "POST", path, {"token": token, "returnSecureToken": True},
                            {"Content-Type": "application/json"})
    assert status == 200 and again["isNewUser"] is False, again


def test_idp_sign_in_with_a_disposable_domain_is_refused(app, emulator):
    email = f"{uuid.uuid4().hex[:8]}@mailinator.com"
    id_token = json.dumps({"sub": uuid.uuid4().hex, "email": email, "email_verified": True})
    status, body, _ = call(emulator, "POST",
                           "/identitytoolkit.googleapis.com/v1/accounts:signInWithIdp?key=fake-api-key",
                           {"postBody": urllib.parse.urlencode({"id_token": id_token, "providerId": "google.com"}),
                            "requestUri": "http://localhost", "returnSecureToken": True},
                           {"Content-Type": "application/json"})
    assert status == 400, body
    assert body["error"]["message"].startswith("BLOCKING_FUNCTION_ERROR_RESPONSE"), body
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user_by_email(email)


def test_admin_created_users_skip_blocking_functions(app, emulator):
    user = auth.create_user(email=f"{uuid.uuid4().hex[:8]}@mailinator.com", password="secret123")
    assert user.custom_claims is None


def test_submit_score_writes_the_entry_and_the_leaderboard_follows(app, emulator):
    _, body, _ = sign_up(emulator, f"{uuid.uuid4().hex[:8]}@example.com")
    token, uid = body["idToken"], body["localId"]
    player = f"s{uuid.uuid4().hex[:8]}"
    status, answer, headers = call_function(emulator, "submitScore", {"playerName": player, "score": 77}, token)
    assert status == 200, answer
    entry_id = answer["result"]["id"]
    emulator.wait_for_deliveries()
    entry = db.reference(f"/scores/{entry_id}").get()
    assert entry == {"playerName": player, "score": 77, "cheatMode": False, "uid": uid}
    assert db.reference(f"/leaderboard/{player}").get() == 77


def test_callable_errors_are_the_firebase_error_bodies(app, emulator):
    _, body, _ = sign_up(emulator, f"{uuid.uuid4().hex[:8]}@example.com")
    token = body["idToken"]
    status, answer, _ = call_function(emulator, "submitScore", {"playerName": "ada", "score": 5})
    assert (status, answer["error"]["status"]) == (401, "UNAUTHENTICATED")
    status, answer, _ = call_function(emulator, "submitScore", {"playerName": "ada", "score": -3}, token)
    assert status == 400
    assert answer == {"error": {"status": "INVALID_ARGUMENT", "message": "score must be a whole number from 0 to 1000000",
                                "details": {"field": "score"}}}
    status, answer, _ = call_function(emulator, "submitScore", {"playerName": "ada"}, token)
    assert (status, answer["error"]["status"]) == (400, "INVALID_ARGUMENT")
    assert "data.score" in answer["error"]["message"]
    # Not JSON, no data, an extra key: Bad Request.
    for raw in (b"not json", b'{"score": 1}', b'{"data": 1, "more": 2}'):
        status, answer, _ = call(emulator, "POST", f"/{PROJECT}/us-central1/submitScore", raw=raw,
                                 headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"})
        assert (status, answer) == (400, {"error": {"status": "INVALID_ARGUMENT", "message": "Bad Request"}})


def test_expired_and_forged_id_tokens_are_refused(app, emulator):
    _, body, _ = sign_up(emulator, f"{uuid.uuid4().hex[:8]}@example.com")
    header, payload, signature = body["idToken"].split(".")
    for change in ({"exp": 1}, {"aud": "another-project"}):
        decoded = claims(body["idToken"])
        decoded.update(change)
        forged_payload = base64.urlsafe_b64encode(json.dumps(decoded).encode()).decode().rstrip("=")
        status, answer, _ = call_function(emulator, "submitScore", {"playerName": "ada", "score": 1},
                                          f"{header}.{forged_payload}.{signature}")
        assert (status, answer) == (401, {"error": {"status": "UNAUTHENTICATED", "message": "Unauthenticated"}})


def test_streaming_request_and_unknown_functions(app, emulator):
    _, body, _ = sign_up(emulator, f"{uuid.uuid4().hex[:8]}@example.com")
    player = f"t{uuid.uuid4().hex[:8]}"
    status, text, headers = call_function(emulator, "submitScore", {"playerName": player, "score": 12},
                                          body["idToken"], accept="text/event-stream")
    assert status == 200
    assert headers["Content-Type"] == "text/event-stream"
    assert text.startswith('data: {"result":{"id":"') and text.endswith("}}\n\n"), text
    status, answer, _ = call(emulator, "POST", f"/{PROJECT}/us-central1/noSuchFunction", {"data": 1},
                             {"Content-Type": "application/json"})
    assert status == 404, answer
    status, _, headers = call(emulator, "OPTIONS", f"/{PROJECT}/us-central1/submitScore",
                              headers={"Origin": "http://localhost:5173", "Access-Control-Request-Method": "POST"})
    assert status == 204
    assert headers["Access-Control-Allow-Origin"] == "http://localhost:5173"


def test_function_urls_refuse_other_host_names(app, emulator):
    """Function URLs take the emulator's unsigned tokens: a page that points its own domain at
    127.0.0.1 must not reach them, nor learn the functions' names from a 404."""
    import http.client
    host, port = emulator.host.rsplit(":", 1)
    for name, path, expected in [("attacker.example", f"/{PROJECT}/us-central1/submitScore", 403),
                                 (f"attacker.example:{port}", f"/{PROJECT}/us-central1/noSuchFunction", 403),
                                 (f"[::1]evil:{port}", f"/{PROJECT}/us-central1/submitScore", 403),
                                 (f"localhost:{port}", f"/{PROJECT}/us-central1/noSuchFunction", 404)]:
        connection = http.client.HTTPConnection(host, int(port), timeout=30)
        connection.putrequest("POST", path, skip_host=True)
        connection.putheader("Host", name)
        connection.putheader("Content-Type", "application/json")
        connection.putheader("Content-Length", "11")
        connection.endheaders(b'{"data": 1}')
        response = connection.getresponse()
        text = response.read().decode()
        connection.close()
        assert response.status == expected, (name, text)
        if expected == 403:
            assert "submitScore" not in text and "localhost" in text, text
