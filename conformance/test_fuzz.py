"""Hostile input from outside: generated malformed requests against every route family.

FUZZ_SEED (default 20261124) makes a run repeatable: a failure prints the seed and the request
that caused it, and `FUZZ_SEED=N FUZZ_REQUESTS=M ./test.sh` replays it. FUZZ_REQUESTS (default
10,000) is how many requests are sent. Each must be answered below 500 without the connection
breaking or hanging; afterwards the emulator and the deployed worker still answer, and the data
seeded before the run reads back byte for byte the same.
"""

import gzip
import http.client
import json
import os
import random
import uuid
from urllib.parse import quote

import pytest

from conftest import PROJECT

SEED = int(os.environ.get("FUZZ_SEED", "20261124"))
REQUESTS = int(os.environ.get("FUZZ_REQUESTS", "10000"))
NS = f"{PROJECT}-default-rtdb"
OWNER = {"Authorization": "Bearer owner", "Content-Type": "application/json"}

# Bodies that no route may accept as JSON.
MALFORMED = [
    b"", b"{", b"}", b"[", b"nul", b"tru", b"{'a': 1}", b'{"a": 1,}', b"[1,]", b'{"a": 1} // c', b"/* c */ {}",
    b'{"a": NaN}', b'{"a": Infinity}', b'{"a": -Infinity}', b'{"a": 01}', b'{"a": 1.}', b'{"a": .5}', b'{"a": +1}',
    b'{"a": 1e400}', b'{"a": -1e400}', b'{"a": "\xff\xfe"}', b'{"\xc3\x28": 1}', b'{"a": "\\ud800"}',
    b'{"a": "\\x41"}', b'{"a": "line\nbreak"}', b'{"a" 1}', b'{a: 1}', b'{"a": [1 2]}', b'{"a": tRue}',
    b"\xef\xbb\xbf{}", b"\x00", b'{"a": 1}{"b": 2}', b"[" * 600 + b"]" * 600, b"[" * 5000, b'"unterminated',
]


def deep(depth):
    return ("{\"a\":" * depth + "1" + "}" * depth).encode()


def junk_json(rng):
    """A body: malformed, or JSON of a shape no route expects."""
    choice = rng.random()
    if choice < 0.45:
        return rng.choice(MALFORMED)
    if choice < 0.55:
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 64)))
    shapes = [
        [], "text", 12, True, None, 1e308, -0.0, 123456789012345678901234567890, {"": 1}, {"a": {"": 2}},
        {"k" * 10_000: 1}, {"a": "x" * 100_000}, {"a": [None] * 1000}, {".": 1}, {"$x": 1}, {"a/b": 1}, {"[": 1},
        {"a": {"b": {"c": {"d": []}}}}, {"parameters": []}, {"message": 5}, {"email": 5}, {"localId": []},
    ]
    value = rng.choice(shapes)
    if rng.random() < 0.1:
        return deep(rng.choice([40, 100, 400, 2000]))
    return json.dumps(value).encode()


def hostile_key(rng):
    return rng.choice([
        "a.b", "a#b", "a$b", "a[b", "a]b", "..", ".", "%2E%2E", "%2F", "a%00b", "k" * 800, "%FF%FE", "\u0001",
        "ok", str(uuid.uuid4()), " ", "%20", "é", "%C3%A9", "a%2Fb", "%5B%5D",
    ])


def database_request(rng):
    method = rng.choice(["PUT", "PATCH", "POST", "DELETE", "GET"])
    parts = [hostile_key(rng) for _ in range(rng.randint(1, 4))]
    target = rng.random()
    if target < 0.15:
        # The seeded location itself: only requests that must be refused.
        path = "/seed"
        headers = dict(OWNER)
        if rng.random() < 0.5:
            headers["If-Match"] = rng.choice(["junk", "", "null_etag", "*", "\"quoted\""])
            return rng.choice(["PUT", "DELETE", "PATCH"]), f"{path}.json?ns={NS}", headers, b'{"x": 1}'
        return rng.choice(["PUT", "PATCH", "POST"]), f"{path}.json?ns={NS}", headers, rng.choice(MALFORMED)
    path = "/fuzz/" + "/".join(quote(p, safe="%") if "%" not in p else p for p in parts)
    query = [f"ns={NS}"]
    for _ in range(rng.randint(0, 3)):
        query.append(rng.choice([
            "orderBy=junk", 'orderBy="$key"', 'orderBy="$value"', 'orderBy="a.b"', "limitToFirst=-1",
            "limitToFirst=abc", "limitToLast=1e30", "startAt=unquoted", "endAt={", 'equalTo="x"', "shallow=maybe",
            "shallow=true", "print=weird", "print=silent", "format=export", "format=x", "timeout=junk",
            "writeSizeLimit=huge", "ns=", "ns=other-ns", "auth=garbage", "download=x",
        ]))
    headers = dict(OWNER) if rng.random() < 0.8 else {}
    if rng.random() < 0.2:
        headers["If-Match"] = rng.choice(["junk", "null_etag", ""])
    if rng.random() < 0.1:
        headers["X-HTTP-Method-Override"] = rng.choice(["PUT", "DELETE", "PATCH", "JUNK"])
    body = junk_json(rng) if method != "GET" and rng.random() < 0.8 else json.dumps({"v": rng.random()}).encode()
    return method, f"{path}.json?{'&'.join(query)}", headers, body


def remote_config_request(rng):
    base = f"/v1/projects/{PROJECT}/remoteConfig"
    headers = dict(OWNER)
    kind = rng.random()
    if kind < 0.45:
        headers["If-Match"] = rng.choice(["*", "junk", "etag-0-1", ""])
        body = rng.choice([
            junk_json(rng), b'{"paramters": {}}', b'{"parameters": {"a": {"defaultValue": {"value": 5}}}}',
            b'{"parameters": {"a": {"defaultValu": {"value": "x"}}}}', b'{"conditions": [{"name": "c"}]}',
            b'{"conditions": [{"name": "c", "expression": "device.os == "}]}',
            b'{"parameters": {"a": {"conditionalValues": {"nope": {"value": "x"}}}}}',
            b'{"parameters": {"a": {"valueType": "NUMBER", "defaultValue": {"value": "x"}}}}',
            b'{"parameters": {"": {}}}', b'{"version": {"versionNumber": []}}',
        ])
        return "PUT", base + rng.choice(["", "?validate_only=maybe", "?validateOnly=1"]), headers, body
    if kind < 0.6:
        query = rng.choice(["pageSize=-1", "pageSize=abc", "pageSize=1e30", "pageToken=junk", "endVersionNumber=x",
                            "startTime=yesterday", "endTime=-", "pageSize=0", ""])
        return "GET", f"{base}:listVersions?{query}", headers, b""
    if kind < 0.7:
        return "GET", f"{base}?versionNumber={rng.choice(['abc', '-1', '99999999999999999999', '0', ''])}", headers, b""
    if kind < 0.8:
        body = rng.choice([b'{"versionNumber": "abc"}', b'{"versionNumber": -1}', b'{"versionNumber": 1e30}', b"{}",
                           b'{"versionNumber": "999999"}', junk_json(rng)])
        return "POST", f"{base}:rollback", headers, body
    # The device SDKs' fetch: corrupt and bomb-sized gzip, lenient bodies.
    fetch = f"/v1/projects/{PROJECT}/namespaces/firebase:fetch"
    headers = {"Content-Type": "application/json"}
    body = rng.choice([junk_json(rng), b"\x1f\x8b\x08\x00garbage", GZIP_BOMB, gzip.compress(b"{not json")])
    if body[:2] == b"\x1f\x8b":
        headers["Content-Encoding"] = "gzip"
    return "POST", fetch, headers, body


def auth_request(rng):
    base = f"/identitytoolkit.googleapis.com/v1"
    routes = [
        ("POST", f"{base}/accounts:signUp?key=k", {}), ("POST", f"{base}/projects/{PROJECT}/accounts", OWNER),
        ("POST", f"{base}/accounts:signInWithPassword?key=k", {}), ("POST", f"{base}/accounts:lookup?key=k", {}),
        ("POST", f"{base}/projects/{PROJECT}/accounts:lookup", OWNER),
        ("POST", f"{base}/projects/{PROJECT}/accounts:update", OWNER),
        ("POST", f"{base}/projects/{PROJECT}/accounts:delete", OWNER),
        ("POST", f"{base}/projects/{PROJECT}/accounts:batchCreate", OWNER),
        ("POST", f"{base}/projects/{PROJECT}/accounts:batchDelete", OWNER),
        ("GET", f"{base}/projects/{PROJECT}/accounts:batchGet?maxResults={rng.choice(['-1', 'x', '1e30', '0'])}"
                f"&nextPageToken={rng.choice(['junk', '', '%FF'])}", OWNER),
        ("POST", "/securetoken.googleapis.com/v1/token?key=k", {"Content-Type": "application/x-www-form-urlencoded"}),
    ]
    method, path, headers = rng.choice(routes)
    body = rng.choice([
        junk_json(rng), b'{"idToken": "junk"}', b'{"idToken": "a.b.c"}', b'{"localId": "nobody", "customAttributes": "{"}',
        b'{"localId": "nobody", "customAttributes": "[]"}', b'{"users": [{"localId": "x", "passwordHash": "!!"}]}',
        b'{"users": "x"}', b'{"localIds": [1, 2]}', b'{"email": "not-an-email", "password": "x"}',
        b"grant_type=refresh_token&refresh_token=junk", b'{"localId": "' + b"u" * 200 + b'"}',
        b'{"users": [{"localId": "x", "passwordHash": "AAAA"}], "hashAlgorithm": "NOPE"}',
    ])
    return method, path, dict(headers), body


def messaging_request(rng):
    routes = [
        ("POST", f"/v1/projects/{PROJECT}/messages:send"), ("POST", "/iid/v1:batchAdd"),
        ("POST", "/iid/v1:batchRemove"), ("POST", "/iid/v1:batchImport"),
    ]
    method, path = rng.choice(routes)
    body = rng.choice([
        junk_json(rng), b'{"message": {"topic": "a b"}}', b'{"message": {"token": ""}}',
        b'{"message": {"topic": "fuzz", "data": {"k": 5}}}', b'{"message": {"condition": "\'a\' in topics &&"}}',
        b'{"message": {"topic": "fuzz", "android": {"ttl": "forever"}}}', b'{"to": "/topics/", "registration_tokens": []}',
        b'{"to": "/topics/fuzz", "registration_tokens": [1]}', b'{"message": {"token": "junk", "apns": {"payload": 5}}}',
    ])
    return method, path, dict(OWNER), body


def emulator_request(rng):
    base = f"/emulator/v1/projects/{PROJECT}"
    routes = [
        ("POST", f"{base}/functions/{rng.choice(['pushConfig', 'onScoreWrite', 'nope', '%00'])}:trigger"),
        ("POST", f"{base}/functions/x"), ("POST", f"{base}/deadLetters:replay"),
        ("PUT", f"{base}/remoteConfig:fetchLimit"), ("POST", f"{base}/export"), ("POST", f"{base}/deployments"),
        ("POST", f"{base}/devices"), ("GET", f"{base}/devices/{rng.choice(['junk', '%FF', 'x' * 500])}/messages"),
        ("POST", f"{base}/analytics:log?firebase_app_id={rng.choice(['junk', '1:1:ios:a', ''])}"),
        ("POST", f"{base}/apps/{rng.choice(['1:1:ios:a', 'junk'])}/events"),
        ("GET", f"{base}/analytics/events?{rng.choice(['limit=-1', 'limit=x', 'appInstanceId=%FF', ''])}"),
        ("GET", f"{base}/events?wait={rng.choice(['maybe', 'false'])}"), ("PATCH", f"{base}/config"),
    ]
    method, path = rng.choice(routes)
    body = rng.choice([
        junk_json(rng), b'{"event": {"type": 5}}', b'{"event": {"data": "x", "datacontenttype": "application/json"}}',
        b'{"event": {"specversion": "0.3"}}', b'{"eventId": "nope"}', b'{"id": 5}', b'{"count": 1e30, "windowSeconds": 1}',
        b'{"count": -5, "windowSeconds": "x"}', b'{"path": "relative"}', b'{"path": "/proc/self/nope"}',
        b'{"binary": "/bin/sh", "manifest": {}}', b'{"binary": "relative", "manifest": {}}', b'{"platform": 5}',
        b'{"app_instance_id": "a", "events": [{"name": "' + b"n" * 100 + b'"}]}', b'{"events": "x"}',
        b'{"signIn": {"allowDuplicateEmails": "maybe"}}',
    ])
    return method, path, dict(OWNER), body


def worker_request(rng, worker):
    function = rng.choice(["pushConfig", "onScoreWrite", "onUserCreated", "nope", ""])
    headers = {"ce-id": str(rng.randint(0, 10**9)), "ce-source": "//fuzz", "ce-specversion": "1.0",
               "ce-type": rng.choice(["google.firebase.remoteconfig.remoteConfig.v1.updated",
                                      "google.firebase.database.ref.v1.written", "google.firebase.auth.user.v1.created",
                                      "x", ""]),
               "Content-Type": rng.choice(["application/json", "application/json; charset=latin1", "text/plain",
                                           "application/cloudevents+json", "application/cloudevents-batch+json", ""])}
    for name in rng.sample(list(headers), rng.randint(0, 2)):
        del headers[name]
    if rng.random() < 0.3:
        headers[rng.choice(["ce-time", "ce-specversion", "ce-subject", "ce-Bad Name", "ce-id"])] = rng.choice(
            ["yesterday", "0.3", "refs/" + "a" * 5000, "x", "%FF", ""])
    body = rng.choice([junk_json(rng), b'{"versionNumber": "x"}', b'{"data": null, "delta": 5}', b'{"email": "a@b"}',
                       b'{"uid": ""}', b"{}"])
    return "POST", f"/{function}", headers, body, worker


def wrong_method_request(rng):
    paths = [f"/v1/projects/{PROJECT}/remoteConfig", f"/v1/projects/{PROJECT}/messages:send", "/iid/v1:batchAdd",
             f"/emulator/v1/projects/{PROJECT}/events", f"/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
             f"/fuzz.json?ns={NS}", "/", "/nope", "/%FF", "/" + "a" * 5000]
    method = rng.choice(["GET", "PUT", "POST", "PATCH", "DELETE", "OPTIONS", "HEAD", "TRACE", "FOO"])
    return method, rng.choice(paths), dict(OWNER), junk_json(rng) if method not in ("GET", "HEAD") else b""


def oversized_request(rng):
    # Declares a body over the 32 MiB limit and sends only its start: refused with 413 at once.
    path = rng.choice([f"/fuzz/big.json?ns={NS}", f"/v1/projects/{PROJECT}/remoteConfig", "/iid/v1:batchAdd"])
    return "PUT" if "json" in path or "remoteConfig" in path else "POST", path, dict(
        OWNER, **{"Content-Length": str(40 * 1024 * 1024), "If-Match": "*"}), b"{" * 1024


GZIP_BOMB = gzip.compress(b"\0" * (256 * 1024 * 1024), compresslevel=9)


def send(base_host, base_port, method, path, headers, body, timeout=15):
    """One request on a new connection; returns the status, or raises on a broken connection or hang."""
    connection = http.client.HTTPConnection(base_host, base_port, timeout=timeout)
    try:
        connection.putrequest(method, path, skip_accept_encoding=True)
        sent_length = False
        for name, value in headers.items():
            connection.putheader(name, value)
            sent_length = sent_length or name.lower() == "content-length"
        if not sent_length:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders()
        if body:
            try:
                connection.send(body)
            except (BrokenPipeError, ConnectionResetError):
                pass   # the server may answer (413) and close before reading a body it refuses
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def snapshot(emulator, seed):
    """The seeded data as the wire returns it, byte for byte."""
    def raw(method, path, body=None):
        connection = http.client.HTTPConnection(*split(emulator.base), timeout=30)
        try:
            connection.request(method, path, body=body, headers=OWNER)
            response = connection.getresponse()
            return response.status, response.read(), response.getheader("ETag")
        finally:
            connection.close()
    return {
        "database": raw("GET", f"/seed.json?ns={NS}"),
        "template": raw("GET", f"/v1/projects/{PROJECT}/remoteConfig"),
        "user": raw("POST", f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:lookup",
                    json.dumps({"localId": [seed["uid"]]}).encode()),
        "inbox": raw("GET", f"/emulator/v1/projects/{PROJECT}/devices/{seed['token']}/messages"),
    }


def split(base):
    host, port = base.split("//", 1)[1].rsplit(":", 1)
    return host, int(port)


def test_generated_hostile_requests_never_crash_or_corrupt(emulator):
    rng = random.Random(SEED)
    host, port = split(emulator.base)
    # Seed data the run must not change.
    seed = {"uid": f"seed{uuid.uuid4().hex[:8]}"}
    status, _, _ = emulator.request("PUT", f"/seed.json?ns={NS}", {"players": {"ada": {"score": 10}}, "note": "seed"})
    assert status == 200
    status, _, _ = emulator.request("PUT", f"/v1/projects/{PROJECT}/remoteConfig",
                                    {"parameters": {"seeded": {"defaultValue": {"value": "yes"}}}}, {"If-Match": "*"})
    assert status == 200
    status, _, _ = emulator.request("POST", f"/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts",
                                    {"localId": seed["uid"], "email": f"{seed['uid']}@example.com", "password": "secret1"})
    assert status == 200
    status, device, _ = emulator.request("POST", f"/emulator/v1/projects/{PROJECT}/devices", {"platform": "ios"})
    seed["token"] = device["token"]
    emulator.request("POST", f"/v1/projects/{PROJECT}/messages:send",
                     {"message": {"token": seed["token"], "data": {"hello": "seed"}}})
    emulator.wait_for_deliveries()
    before = snapshot(emulator, seed)

    _, functions, _ = emulator.request("GET", f"/emulator/v1/projects/{PROJECT}/functions")
    # Any instance serves every function of the binary at /{name}.
    worker_url = functions["functions"]["onScoreWrite"]["instances"][0]["url"]
    worker = split(worker_url)
    families = [database_request, remote_config_request, auth_request, messaging_request, emulator_request,
                wrong_method_request]
    failures = []
    counts = {}
    for index in range(REQUESTS):
        roll = rng.random()
        target = (host, port)
        if roll < 0.002:
            method, path, headers, body = oversized_request(rng)
        elif roll < 0.1:
            method, path, headers, body, target = worker_request(rng, worker)
        else:
            method, path, headers, body = rng.choice(families)(rng)
        try:
            status = send(*target, method, path, headers, body)
        except Exception as error:  # a reset, a hang or a malformed answer
            status = f"{type(error).__name__}: {error}"
        counts[status] = counts.get(status, 0) + 1
        if not isinstance(status, int) or status >= 500:
            failures.append(f"#{index} {method} {target[1]}{path[:200]} {headers} {body[:200]!r} -> {status}")
    print(f"fuzz: seed {SEED}, {REQUESTS} requests, statuses {dict(sorted(counts.items(), key=str))}")
    assert not failures, f"seed {SEED}: {len(failures)} failures, first ones:\n" + "\n".join(failures[:20])

    # Alive: the emulator and the worker answer, and the seeded data is unchanged.
    assert send(host, port, "GET", f"/emulator/v1/projects/{PROJECT}/functions", OWNER, b"") == 200
    assert send(*worker, "GET", "/__/health", {}, b"") == 200
    after = snapshot(emulator, seed)
    for name in before:
        assert after[name] == before[name], f"seed {SEED}: the seeded {name} changed"
    emulator.request("PUT", f"/emulator/v1/projects/{PROJECT}/remoteConfig:fetchLimit", {})
