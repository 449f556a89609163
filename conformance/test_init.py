"""`functions init`: the package it writes builds, passes its own tests and deploys to an emulator
as it is, with the dependency pointed at this checkout (and the build folder shared with it, so
nothing already compiled is compiled again)."""

import json
import os
import subprocess
import urllib.error
import urllib.request

from conftest import Emulator, ROOT, PROJECT


def run(*arguments):
    result = subprocess.run([str(argument) for argument in arguments], capture_output=True, text=True, timeout=1800)
    assert result.returncode == 0, f"{' '.join(map(str, arguments))} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def call(base, method, path, body=None, headers=None):
    """A client's call (no owner credential); returns (status, body text)."""
    request = urllib.request.Request(base + path, data=None if body is None else json.dumps(body).encode(),
                                     method=method)
    for name, value in (headers or {"Content-Type": "application/json"}).items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_init_writes_a_package_that_tests_and_deploys(tmp_path):
    binary = os.environ.get("FUNCTIONS_BIN", str(ROOT / ".build" / "debug" / "functions"))
    scratch = os.environ.get("SCRATCH_PATH", str(ROOT / ".build"))
    package = tmp_path / "hello-functions"
    run(binary, "init", package, "--package-path", ROOT)
    tested = run("swift", "test", "--package-path", package, "--scratch-path", scratch)
    assert "6 tests" in tested.stdout + tested.stderr and "passed" in tested.stdout + tested.stderr, tested.stdout[-2000:]

    emulator = subprocess.Popen([binary, "emulators:start", "--in-memory", "--port", "0", "--project", PROJECT],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = emulator.stdout.readline()
        assert line.startswith("ready: "), line
        base = line[len("ready: "):].strip()
        deployed = run(binary, "deploy", "--source", package, "--configuration", "debug", "--scratch-path", scratch,
                       "--emulator", base, "--project", PROJECT)
        for name in ["pushConfig", "uppercase", "createProfile", "countPurchase", "hello", "addMessage", "checkSignUp"]:
            assert name in deployed.stdout, deployed.stdout
        status, text = call(base, "GET", f"/{PROJECT}/us-central1/hello?name=Ada")
        assert (status, text) == (200, "Hello, Ada!")

        status, text = call(base, "POST", "/identitytoolkit.googleapis.com/v1/accounts:signUp?key=fake-api-key",
                            {"email": "ada@example.com", "password": "secret123", "returnSecureToken": True})
        assert status == 200, text
        signed_up = json.loads(text)
        status, text = call(base, "POST", f"/{PROJECT}/us-central1/addMessage", {"data": {"text": "hi"}},
                            {"Content-Type": "application/json", "Authorization": f"Bearer {signed_up['idToken']}"})
        assert status == 200, text
        message_id = json.loads(text)["result"]["id"]
        own = Emulator(base, binary)
        own.wait_for_deliveries()
        status, upper, _ = own.request("GET", f"/uppercase/{message_id}.json?ns={PROJECT}-default-rtdb")
        assert (status, upper) == (200, "HI")
        _, profile, _ = own.request("GET", f"/profiles/{signed_up['localId']}.json?ns={PROJECT}-default-rtdb")
        assert profile == {"email": "ada@example.com"}, profile
    finally:
        emulator.terminate()
        emulator.wait(timeout=60)
