"""Auth e-mail actions: firebase-admin's generate_*_link calls, then the REST calls a client
makes with the code (accounts:resetPassword, accounts:update with oobCode,
accounts:signInWithEmailLink), the page the links open, and the codes the emulator lists as
the mails it would have sent. The sample's checkSignUp blocking function runs for a link
sign-in that creates its user."""

import json
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid

import pytest
from firebase_admin import auth

from conftest import PROJECT

V1 = "/identitytoolkit.googleapis.com/v1"
CODES = f"/emulator/v1/projects/{PROJECT}/oobCodes"


def client(emulator, method, body):
    """A device SDK's call: an API key, no owner credential; returns (status, body)."""
    request = urllib.request.Request(f"{emulator.base}{V1}/accounts:{method}?key=fake-api-key",
                                     data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def open_link(link, form=None):
    """Opens a link as a browser does, redirects not followed; returns (status, headers, text)."""
    data = None if form is None else urllib.parse.urlencode(form).encode()
    request = urllib.request.Request(link, data=data, headers={"Accept": "text/html"})
    try:
        with urllib.request.build_opener(NoRedirect).open(request, timeout=60) as response:
            return response.status, response.headers, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read().decode()


def query(link):
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(link).query))


def listed(emulator, email):
    status, body, _ = emulator.request("GET", CODES)
    assert status == 200, body
    return [entry for entry in body["oobCodes"] if entry["email"] == email]


def refresh(emulator, refresh_token):
    request = urllib.request.Request(f"{emulator.base}/securetoken.googleapis.com/v1/token?key=fake-api-key",
                                     data=urllib.parse.urlencode({"grant_type": "refresh_token",
                                                                  "refresh_token": refresh_token}).encode())
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_a_reset_link_sets_the_new_password_once_and_revokes_sessions(app, emulator):
    email = f"reset.{uuid.uuid4().hex[:8]}@example.com"
    user = auth.create_user(email=email, password="old-secret")
    status, session = client(emulator, "signInWithPassword", {"email": email, "password": "old-secret"})
    assert status == 200, session
    # Revocation counts whole seconds, as in the service: a session from the second of the reset
    # stays valid. Wait for the clock to leave the second the session was issued in.
    issued = auth.verify_id_token(session["idToken"])["iat"]
    while time.time() < issued + 1:
        time.sleep(0.05)

    link = auth.generate_password_reset_link(
        email.upper(), auth.ActionCodeSettings(url="https://app.example.com/after-reset?from=mail"))
    assert link.startswith(f"{emulator.base}/emulator/action?mode=resetPassword&lang=en&oobCode="), link
    code = query(link)["oobCode"]
    assert query(link)["continueUrl"] == "https://app.example.com/after-reset?from=mail"
    [entry] = listed(emulator, email)
    assert entry["oobCode"] == code and entry["requestType"] == "PASSWORD_RESET" and entry["oobLink"] == link

    # verifyPasswordResetCode: the code is checked, not used.
    status, checked = client(emulator, "resetPassword", {"oobCode": code})
    assert status == 200 and checked["email"] == email and checked["requestType"] == "PASSWORD_RESET", checked
    status, reset = client(emulator, "resetPassword", {"oobCode": code, "newPassword": "new-secret"})
    assert status == 200 and reset["email"] == email, reset
    assert listed(emulator, email) == []

    status, body = client(emulator, "signInWithPassword", {"email": email, "password": "new-secret"})
    assert status == 200 and body["localId"] == user.uid, body
    status, body = client(emulator, "signInWithPassword", {"email": email, "password": "old-secret"})
    assert status == 400 and body["error"]["message"] == "INVALID_PASSWORD", body
    # The sessions from before the reset are revoked.
    with pytest.raises(auth.RevokedIdTokenError):
        auth.verify_id_token(session["idToken"], check_revoked=True)
    status, body = refresh(emulator, session["refreshToken"])
    assert status == 400 and body["error"]["message"] == "TOKEN_EXPIRED", body
    assert auth.get_user(user.uid).email_verified

    # Used once: the second use is refused.
    status, body = client(emulator, "resetPassword", {"oobCode": code, "newPassword": "third-secret"})
    assert status == 400 and body["error"]["message"] == "INVALID_OOB_CODE", body
    with pytest.raises(auth.EmailNotFoundError):
        auth.generate_password_reset_link(f"nobody.{uuid.uuid4().hex[:8]}@example.com")


def test_a_verification_link_verifies_and_a_code_works_only_for_its_kind_and_address(app, emulator):
    email = f"verify.{uuid.uuid4().hex[:8]}@example.com"
    user = auth.create_user(email=email, password="secret1")
    link = auth.generate_email_verification_link(email)
    code = query(link)["oobCode"]
    assert query(link)["mode"] == "verifyEmail"

    # A code for something else, or for another address, is refused.
    status, body = client(emulator, "resetPassword", {"oobCode": code, "newPassword": "new-secret"})
    assert status == 400 and body["error"]["message"] == "INVALID_OOB_CODE", body
    sign_in_code = query(auth.generate_sign_in_with_email_link(
        f"other.{uuid.uuid4().hex[:8]}@example.com", auth.ActionCodeSettings(url="https://app.example.com/")))["oobCode"]
    status, body = client(emulator, "signInWithEmailLink", {"email": email, "oobCode": sign_in_code})
    assert status == 400 and body["error"]["message"].startswith("INVALID_EMAIL"), body
    assert not auth.get_user(user.uid).email_verified

    status, body = client(emulator, "update", {"oobCode": code})
    assert status == 200 and body["emailVerified"] is True and body["email"] == email, body
    assert auth.get_user(user.uid).email_verified
    status, body = client(emulator, "update", {"oobCode": code})
    assert status == 400 and body["error"]["message"] == "INVALID_OOB_CODE", body

    # Opening a link in a browser verifies too.
    second = auth.create_user(email=f"page.{uuid.uuid4().hex[:8]}@example.com")
    status, _, page = open_link(auth.generate_email_verification_link(second.email))
    assert status == 200 and "The email has been successfully verified." in page, page
    assert auth.get_user(second.uid).email_verified
    fresh = auth.generate_email_verification_link(second.email)
    status, _, page = open_link(fresh.replace(query(fresh)["oobCode"], "not-a-code"))
    assert status == 400 and "This link is not valid" in page, page


def test_a_link_sign_in_creates_the_user_through_the_blocking_function(app, emulator):
    email = f"link.{uuid.uuid4().hex[:8]}@example.com"
    settings = auth.ActionCodeSettings(url="https://app.example.com/finish", handle_code_in_app=True,
                                       ios_bundle_id="com.example.ios", android_package_name="com.example.android")
    link = auth.generate_sign_in_with_email_link(email, settings)
    assert query(link)["mode"] == "signIn" and query(link)["continueUrl"] == "https://app.example.com/finish"
    [entry] = listed(emulator, email)
    assert entry["actionCodeSettings"] == {"continueUrl": "https://app.example.com/finish", "canHandleCodeInApp": True,
                                           "iOSBundleId": "com.example.ios",
                                           "androidPackageName": "com.example.android"}, entry

    # The link opens the app at the continue URL with the code; the app then signs in.
    status, headers, _ = open_link(link)
    assert status == 303, status
    target = headers["Location"]
    assert target.startswith("https://app.example.com/finish?") and query(target)["oobCode"] == query(link)["oobCode"]
    status, body = client(emulator, "signInWithEmailLink", {"email": email, "oobCode": query(target)["oobCode"]})
    assert status == 200 and body["isNewUser"] is True and body["email"] == email, body
    claims = auth.verify_id_token(body["idToken"])
    assert claims["role"] == "player", claims  # set by the sample's checkSignUp
    assert claims["firebase"]["sign_in_provider"] == "password"
    user = auth.get_user(body["localId"])
    assert user.email_verified and user.custom_claims == {"role": "player"}
    assert [provider.provider_id for provider in user.provider_data] == ["password"]

    # A second link signs the same user in; the first is used up.
    status, again = client(emulator, "signInWithEmailLink", {"email": email, "oobCode": query(link)["oobCode"]})
    assert status == 400 and again["error"]["message"] == "INVALID_OOB_CODE", again
    code = query(auth.generate_sign_in_with_email_link(email, settings))["oobCode"]
    status, again = client(emulator, "signInWithEmailLink", {"email": email, "oobCode": code})
    assert status == 200 and again["isNewUser"] is False and again["localId"] == body["localId"], again

    # checkSignUp refuses a throwaway domain: no user, and the code is still there.
    throwaway = f"link.{uuid.uuid4().hex[:8]}@mailinator.com"
    code = query(auth.generate_sign_in_with_email_link(throwaway, settings))["oobCode"]
    status, refused = client(emulator, "signInWithEmailLink", {"email": throwaway, "oobCode": code})
    assert status == 400, refused
    assert refused["error"]["message"].startswith("BLOCKING_FUNCTION_ERROR_RESPONSE"), refused
    assert "disposable e-mail domains" in refused["error"]["message"], refused
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user_by_email(throwaway)
    assert [entry["oobCode"] for entry in listed(emulator, throwaway)] == [code]


def test_a_parse_user_resets_their_password_from_the_mailed_link(app, emulator, tmp_path):
    # Imported as a migration does: `functions auth:import --from parse` of a _User export.
    object_id = f"p{uuid.uuid4().hex[:9]}"
    email = f"{object_id}@example.com"
    export = tmp_path / "_User.json"
    export.write_text(json.dumps({"results": [{
        "objectId": object_id, "username": email, "email": email,
        "_hashed_password": "$2a$10$abcdefghijklmnopqrstuu3wCsxB6/zKn6E0GfSu8Oxcxub8tCTka",  # "parse-password"
        "createdAt": "2019-05-01T10:00:00.000Z"}]}))
    run = emulator.cli("auth:import", str(export), "--from", "parse")
    assert run.returncode == 0, run.stderr

    # The app asks for the mail (Parse's requestPasswordReset becomes sendPasswordResetEmail).
    status, body = client(emulator, "sendOobCode", {"requestType": "PASSWORD_RESET", "email": email})
    assert status == 200 and set(body) == {"kind", "email"}, body
    [mail] = listed(emulator, email)
    # The user opens the link, types a new password in the page's form, and submits it.
    status, _, page = open_link(mail["oobLink"])
    assert status == 200 and 'name="newPassword"' in page, page
    form = {**query(mail["oobLink"]), "newPassword": "firebase-password"}
    status, _, page = open_link(f"{emulator.base}/emulator/action", form)
    assert status == 200 and "The password has been successfully updated." in page, page

    status, body = client(emulator, "signInWithPassword", {"email": email, "password": "firebase-password"})
    assert status == 200 and body["localId"] == object_id, body
    status, body = client(emulator, "signInWithPassword", {"email": email, "password": "parse-password"})
    assert status == 400 and body["error"]["message"] == "INVALID_PASSWORD", body
    status, _, page = open_link(f"{emulator.base}/emulator/action", form)
    assert status == 400 and "This link is not valid" in page, page
