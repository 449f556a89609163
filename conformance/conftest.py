"""Starts the emulator the way a user does and points the official firebase-admin SDK at it.

FUNCTIONS_BIN names the built `functions` CLI (default .build/debug/functions). The sample
project in functions/ is deployed with `functions deploy` unless CONFORMANCE_DEPLOY=0, sharing
the root package's build folder (SCRATCH_PATH, default .build; CONFIGURATION, default debug).
"""

import json
import os
import subprocess
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROJECT = "demo-proj"


class Emulator:
    def __init__(self, base, binary):
        self.base = base
        self.host = base.split("//", 1)[1]
        self.binary = binary

    def cli(self, *arguments):
        """Runs the functions CLI against this emulator; returns the finished process."""
        return subprocess.run([self.binary, *arguments, "--emulator", self.base, "--project", PROJECT],
                              capture_output=True, text=True, timeout=600)

    def request(self, method, path, body=None, headers=None):
        """An admin HTTP call to the emulator; returns (status, parsed JSON or None)."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("Authorization", "Bearer owner")
        request.add_header("Content-Type", "application/json")
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        try:
            with urllib.request.urlopen(request, timeout=120) as response:
                text = response.read()
                return response.status, json.loads(text) if text else None, dict(response.headers)
        except urllib.error.HTTPError as error:
            text = error.read()
            return error.code, json.loads(text) if text else None, dict(error.headers)

    def wait_for_deliveries(self):
        """Returns the event log once every queued delivery has finished."""
        status, body, _ = self.request("GET", f"/emulator/v1/projects/{PROJECT}/events?wait=true")
        assert status == 200, body
        return body["events"]


@pytest.fixture(scope="session")
def emulator():
    binary = os.environ.get("FUNCTIONS_BIN", str(ROOT / ".build" / "debug" / "functions"))
    process = subprocess.Popen(
        [binary, "emulators:start", "--in-memory", "--port", "0", "--project", PROJECT],
        stdout=subprocess.PIPE,
        text=True,
    )
    line = process.stdout.readline()
    assert line.startswith("ready: "), f"the emulator printed {line!r} instead of its ready line"
    running = Emulator(line[len("ready: "):].strip(), binary)
    os.environ["FIREBASE_DATABASE_EMULATOR_HOST"] = running.host
    os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = running.host
    os.environ["GCLOUD_PROJECT"] = PROJECT
    if os.environ.get("CONFORMANCE_DEPLOY", "1") != "0":
        subprocess.run(
            [
                binary, "deploy", "--source", str(ROOT / "functions"),
                "--configuration", os.environ.get("CONFIGURATION", "debug"),
                "--scratch-path", os.environ.get("SCRATCH_PATH", str(ROOT / ".build")),
                "--emulator", running.base, "--project", PROJECT,
            ],
            check=True,
        )
    yield running
    process.terminate()
    process.wait(timeout=30)


@pytest.fixture(scope="session")
def app(emulator):
    import firebase_admin

    app = firebase_admin.initialize_app(
        options={"databaseURL": f"https://{PROJECT}-default-rtdb.firebaseio.com", "projectId": PROJECT}
    )
    yield app
    firebase_admin.delete_app(app)
