"""Local stand-ins of the Google services a deployed function reaches, and a functions binary run
the way Cloud Run runs it.

`Google` serves, on one loopback port: an OAuth 2 token endpoint (`POST /token`) that checks each
service-account assertion with google-auth (RS256 signature by the account's key, `kid`, issuer,
audience, scopes, lifetime) and each refresh grant's fields; a metadata server
(`/computeMetadata/v1/...`, only with `Metadata-Flavor: Google`); FCM's `messages:send`; and a
Realtime Database REST API (`/{path}.json`, ETags and `If-Match` included). FCM and the database
accept only tokens this token endpoint or metadata server issued and that have not expired.

`Function` starts a functions binary with Cloud Run's environment (K_SERVICE, PORT, FUNCTION_TARGET)
and nothing else of this machine's: no emulator variable, an empty gcloud folder, and a metadata
server only where a test names one (elsewhere an address where nothing listens).
"""

import base64
import hashlib
import json
import os
import secrets
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from google.auth import jwt

from test_container import vector

ROOT = Path(__file__).resolve().parent.parent
BIN_DIR = Path(os.environ.get("FUNCTIONS_BIN", str(ROOT / ".build" / "debug" / "functions"))).parent
SCOPES_NEEDED = {
    "https://www.googleapis.com/auth/firebase.messaging",
    "https://www.googleapis.com/auth/firebase.database",
    "https://www.googleapis.com/auth/userinfo.email",
}


class Google:
    """The stand-ins, and what each was shown."""

    def __init__(self, metadata_project=None, lifetime=3600, accept_owner=False):
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = secrets.token_hex(8)
        self.email = "functions-runtime@prod-project.iam.gserviceaccount.com"
        self.metadata_project = metadata_project  # None: not a metadata server
        self.lifetime = lifetime
        self.accept_owner = accept_owner  # the emulator's fixed token, for a like-for-like benchmark
        self.lock = threading.Lock()
        self.tokens = {}  # token -> expiry (monotonic)
        self.token_requests = 0
        self.metadata_token_requests = 0
        self.refusals = []  # why a grant or a call was refused
        self.messages = []  # (project, body)
        self.database = None
        self.database_requests = []  # (method, path, ns)
        google = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *arguments):
                pass

            def do_GET(self):
                google.handle(self, "GET")

            def do_POST(self):
                google.handle(self, "POST")

            def do_PUT(self):
                google.handle(self, "PUT")

            def do_PATCH(self):
                google.handle(self, "PATCH")

            def do_DELETE(self):
                google.handle(self, "DELETE")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.host = self.base.split("//", 1)[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()

    def key_file(self, directory, project_id="key-project", token_uri=None, private_key=None):
        """Writes the account's key file (as the Cloud console downloads it); returns its path."""
        pem = self.key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                     serialization.NoEncryption()).decode()
        key = {"type": "service_account", "project_id": project_id, "private_key_id": self.kid,
               "private_key": private_key if private_key is not None else pem, "client_email": self.email,
               "client_id": "1234567890", "auth_uri": "https://accounts.google.com/o/oauth2/auth",
               "token_uri": token_uri or self.base + "/token"}
        path = Path(directory) / "key.json"
        path.write_text(json.dumps(key))
        return str(path)

    def private_key_pem(self):
        return self.key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()).decode()

    # The routes.

    def handle(self, request, method):
        url = urllib.parse.urlsplit(request.path)
        query = urllib.parse.parse_qs(url.query)
        length = int(request.headers.get("Content-Length") or 0)
        body = request.rfile.read(length) if length else b""
        if method == "POST" and url.path == "/token":
            return self.token(request, body)
        if url.path.startswith("/computeMetadata/v1/"):
            return self.metadata(request, url.path[len("/computeMetadata/v1/"):], query)
        if not self.authorized(request):
            return self.answer(request, 401, {"error": {"code": 401, "message": "Request had invalid authentication "
                                                        "credentials.", "status": "UNAUTHENTICATED"}})
        if method == "POST" and url.path.startswith("/v1/projects/") and url.path.endswith("/messages:send"):
            project = url.path[len("/v1/projects/"):-len("/messages:send")]
            with self.lock:
                self.messages.append((project, json.loads(body)))
                number = len(self.messages)
            return self.answer(request, 200, {"name": f"projects/{project}/messages/{number}"})
        if url.path.endswith(".json"):
            return self.realtime_database(request, method, url.path[1:-len(".json")], query, body)
        return self.answer(request, 404, {"error": {"code": 404, "message": "not found"}})

    def answer(self, request, status, body=None, headers=None):
        data = b"" if body is None else json.dumps(body).encode()
        request.send_response(status)
        request.send_header("Content-Type", "application/json")
        request.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            request.send_header(name, value)
        request.end_headers()
        request.wfile.write(data)

    def issue(self, request, counter, refusal, headers=None):
        with self.lock:
            setattr(self, counter, getattr(self, counter) + 1)
            if refusal:
                self.refusals.append(refusal)
            else:
                token = "ya29." + secrets.token_urlsafe(24)
                self.tokens[token] = time.monotonic() + self.lifetime
        if refusal:
            return self.answer(request, 400, {"error": "invalid_grant", "error_description": refusal}, headers)
        # expires_in as a string, as some Google endpoints send it.
        return self.answer(request, 200, {"access_token": token, "expires_in": str(self.lifetime),
                                          "token_type": "Bearer"}, headers)

    def token(self, request, body):
        form = {key: values[0] for key, values in urllib.parse.parse_qs(body.decode()).items()}
        refusal = None
        if request.headers.get("Content-Type") != "application/x-www-form-urlencoded":
            refusal = f"content type {request.headers.get('Content-Type')}"
        elif form.get("grant_type") == "urn:ietf:params:oauth:grant-type:jwt-bearer":
            refusal = self.check_assertion(form.get("assertion", ""))
        else:
            refusal = f"grant type {form.get('grant_type')}"
        return self.issue(request, "token_requests", refusal)

    def check_assertion(self, assertion):
        """Why google-auth refuses the assertion, or None."""
        public_pem = self.key.public_key().public_bytes(serialization.Encoding.PEM,
                                                        serialization.PublicFormat.SubjectPublicKeyInfo)
        try:
            header = json.loads(base64.urlsafe_b64decode(assertion.split(".")[0] + "=="))
            if header.get("kid") != self.kid or header.get("alg") != "RS256":
                return f"header {header}"
            claims = jwt.decode(assertion, certs={self.kid: public_pem}, audience=self.base + "/token")
        except Exception as error:  # google-auth's refusal, whatever its class
            return f"assertion refused: {error}"
        if claims.get("iss") != self.email:
            return f"issuer {claims.get('iss')}"
        if not SCOPES_NEEDED <= set(claims.get("scope", "").split(" ")):
            return f"scopes {claims.get('scope')}"
        if not 0 < claims["exp"] - claims["iat"] <= 3600:
            return f"lifetime {claims['exp'] - claims['iat']}"
        return None

    def metadata(self, request, path, query):
        if self.metadata_project is None:
            return self.answer(request, 404, {"error": "not found"})
        flavor = {"Metadata-Flavor": "Google"}
        if request.headers.get("Metadata-Flavor") != "Google":
            return self.answer(request, 403, {"error": "Missing Metadata-Flavor:Google header."}, flavor)
        if path == "project/project-id":
            data = self.metadata_project.encode()
            request.send_response(200)
            request.send_header("Metadata-Flavor", "Google")
            request.send_header("Content-Type", "application/text")
            request.send_header("Content-Length", str(len(data)))
            request.end_headers()
            request.wfile.write(data)
            return None
        if path == "instance/service-accounts/default/token":
            scopes = set(query.get("scopes", [""])[0].split(","))
            refusal = None if SCOPES_NEEDED <= scopes else f"metadata token scopes {scopes}"
            return self.issue(request, "metadata_token_requests", refusal, flavor)
        return self.answer(request, 404, {"error": "not found"}, flavor)

    def authorized(self, request):
        header = request.headers.get("Authorization", "")
        token = header[len("Bearer "):] if header.startswith("Bearer ") else ""
        with self.lock:
            if self.accept_owner and token == "owner":
                return True
            expiry = self.tokens.get(token)
            if expiry is not None and expiry > time.monotonic():
                return True
            self.refusals.append(f"API call with token {token[:12]}…")
            return False

    # The Realtime Database: one tree, its ETag a digest of the value, as the REST API's.

    def node(self, path):
        value = self.database
        for segment in [s for s in path.split("/") if s]:
            if not isinstance(value, dict):
                return None
            value = value.get(segment)
        return value

    def put(self, path, value):
        segments = [s for s in path.split("/") if s]
        if not segments:
            self.database = value
            return
        if not isinstance(self.database, dict):
            self.database = {}
        parent = self.database
        for segment in segments[:-1]:
            if not isinstance(parent.get(segment), dict):
                parent[segment] = {}
            parent = parent[segment]
        if value is None:
            parent.pop(segments[-1], None)
        else:
            parent[segments[-1]] = value

    @staticmethod
    def etag(value):
        return base64.b64encode(hashlib.sha1(json.dumps(value, sort_keys=True).encode()).digest()).decode()

    def realtime_database(self, request, method, path, query, body):
        path = urllib.parse.unquote(path)
        silent = query.get("print", [""])[0] == "silent"
        with self.lock:
            self.database_requests.append((method, path, query.get("ns", [None])[0]))
            current = self.node(path)
            etag = self.etag(current)
            if method == "GET":
                headers = {"ETag": etag} if request.headers.get("X-Firebase-ETag") == "true" else {}
                return self.answer(request, 200, current, headers)
            if_match = request.headers.get("If-Match")
            if if_match is not None and if_match != etag:
                return self.answer(request, 412, current, {"ETag": etag})
            value = json.loads(body) if body else None
            if method == "PUT":
                self.put(path, value)
            elif method == "PATCH":
                for key, child in value.items():
                    self.put(f"{path}/{key}", child)
            elif method == "DELETE":
                self.put(path, None)
            elif method == "POST":
                name = "-N" + secrets.token_hex(8)
                self.put(f"{path}/{name}", value)
                return self.answer(request, 200, {"name": name})
        if silent:
            request.send_response(204)
            request.end_headers()
            return None
        return self.answer(request, 200, value)


class Function:
    """A functions binary run as Cloud Run runs it, with `variables` added to its environment."""

    def __init__(self, target, binary="AppFunctions", **variables):
        self.folder = tempfile.TemporaryDirectory()
        environment = {key: value for key, value in os.environ.items()
                       if not key.startswith(("FUNCTIONS_", "FIREBASE_", "GOOGLE_", "GCLOUD_", "GCE_", "CLOUDSDK_",
                                              "K_"))}
        environment.update(K_SERVICE=target.lower(), K_REVISION=f"{target.lower()}-00001", PORT="0",
                           HOST="127.0.0.1", FUNCTION_TARGET=target, FUNCTION_SIGNATURE_TYPE="cloudevent",
                           CLOUDSDK_CONFIG=self.folder.name,
                           # Where nothing listens: no run ever reaches a real metadata server.
                           GCE_METADATA_HOST="127.0.0.1:9")
        environment.update(variables)
        self.process = subprocess.Popen([str(BIN_DIR / binary)], env=environment, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)
        self.lines = []
        self.changed = threading.Condition()
        self.base = None
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        with self.changed:
            assert self.changed.wait_for(lambda: self.base is not None or self.process.poll() is not None, 60)
        assert self.base, f"the function never got ready: {self.process.stderr.read()}"

    def _read(self):
        for line in self.process.stdout:
            with self.changed:
                if line.startswith("ready: "):
                    self.base = line[len("ready: "):].strip()
                else:
                    self.lines.append(line)
                self.changed.notify_all()

    def logs(self, until=lambda entries: True, timeout=30):
        """The log entries (Cloud Logging JSON lines), once `until(entries)` holds."""
        entries = lambda: [json.loads(line) for line in list(self.lines)]
        with self.changed:
            assert self.changed.wait_for(lambda: until(entries()), timeout), "the expected log lines never came"
        return entries()

    def post(self, headers, body, path="/"):
        data = json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method="POST", headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def get(self, path):
        with urllib.request.urlopen(self.base + path, timeout=30) as response:
            return response.status

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
        code = self.process.wait(30)
        self.folder.cleanup()
        return code


def remote_config_event(event_id):
    """A Remote Config `updated` CloudEvent in binary mode (the reference vector, with its own id)."""
    headers, body = vector("consumer-accepted.rc")
    return dict(headers, **{"ce-id": event_id}), body


def score_event(event_id, key, score, player="grace", cheat=False, instance="prod-project-scores"):
    """A database `written` CloudEvent creating `/scores/{key}`."""
    headers, _ = vector("consumer-accepted.db")
    headers = dict(headers, **{
        "ce-id": event_id, "ce-ref": f"scores/{key}", "ce-subject": f"refs/scores/{key}", "ce-instance": instance,
        "ce-source": f"//firebasedatabase.googleapis.com/projects/_/locations/us-central1/instances/{instance}",
    })
    return headers, {"data": None, "delta": {"playerName": player, "score": score, "cheatMode": cheat}}
