"""The author's inner loop, through the CLI on a package of its own made with `functions init`:
params from the `.env` files in the Firebase CLI's order and with its parsing rules, a secret from
`.secret.local` that no log, listing or console shows, a deploy refused in one line when a value is
missing or a key is bad, `functions debug` on one function while the others deliver, and watch
mode: a save deployed with no event lost under a steady write load, and a build error that leaves
the old code serving."""

import json
import os
import re
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import ROOT, Emulator

PROJECT = "loop-demo"
BINARY = os.environ.get("FUNCTIONS_BIN", str(ROOT / ".build" / "debug" / "functions"))
SCRATCH = os.environ.get("SCRATCH_PATH", str(ROOT / ".build"))
SECRET_VALUE = "sk_test_4eC39HqLyjWDarjtT1zdp7dc"

SOURCE = '''import FunctionsWorker

@main
struct Loop: FunctionsApp {
    static let greeting = Param.string("GREETING", default: "Hello")
    static let times = Param.int("TIMES", description: "How many times")
    static let apiKey = Secret("API_KEY")

    static func register(_ functions: inout FunctionRegistry) {
        functions.declare(greeting, times)
        functions["hello"] = Https.onRequest { _, response, context in
            let key = try context.value(apiKey)
            context.logger.info("answering with a key of \\(key.count) characters")
            response.send("VERSION \\(try context.value(greeting)) x\\(try context.value(times)) key=\\(key.count)")
        }.options(.secrets(apiKey))
        functions["peek"] = Https.onRequest { _, response, context in
            response.send(try context.value(apiKey))
        }
        functions["copy"] = Database.ref("/load/{id}").options(.uses(.database)).onCreate { snapshot, context in
            try await context.database.ref("seen").child(context.params["id"] ?? "").set(snapshot.val())
        }
    }
}
'''


def run_cli(*arguments, timeout=900):
    return subprocess.run([BINARY, *arguments], capture_output=True, text=True, timeout=timeout)


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def start_emulator(log, *arguments):
    """An emulator of its own; its standard error goes to `log`."""
    process = subprocess.Popen([BINARY, "emulators:start", "--in-memory", "--port", "0", "--project", PROJECT,
                                *arguments], stdout=subprocess.PIPE, stderr=open(log, "w"), text=True)
    line = process.stdout.readline()
    assert line.startswith("ready: "), line
    return process, Emulator(line[len("ready: "):].strip(), BINARY)


def stop(process):
    process.terminate()
    process.wait(timeout=120)


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    folder = tmp_path_factory.mktemp("loop") / "loop"
    subprocess.run([BINARY, "init", str(folder), "--package-path", str(ROOT)], check=True, capture_output=True)
    (folder / "Sources" / "Loop" / "Loop.swift").write_text(SOURCE.replace("VERSION", "v1"))
    (folder / "Tests" / "LoopTests" / "LoopTests.swift").write_text("// no tests of its own\n")
    return folder


@pytest.fixture(scope="module")
def cli_emulator(tmp_path_factory):
    log = tmp_path_factory.mktemp("logs") / "emulator.log"
    process, emulator = start_emulator(log)
    emulator.log = log
    yield emulator
    stop(process)


def deploy(package, emulator, *extra):
    return run_cli("deploy", "--source", str(package), "--configuration", "debug", "--scratch-path", SCRATCH,
                   "--emulator", emulator.base, "--project", PROJECT, *extra)


def error_lines(finished):
    return [line for line in finished.stderr.splitlines() if line.startswith("Error:")]


def url(emulator, name):
    return f"{emulator.base}/{PROJECT}/us-central1/{name}"


def test_a_missing_param_fails_the_deploy_in_one_line(package, cli_emulator):
    """TIMES has no default and no .env sets it: the deploy stops, naming it and the files to put it in."""
    finished = deploy(package, cli_emulator)
    assert finished.returncode != 0, finished.stderr
    errors = error_lines(finished)
    assert len(errors) == 1, finished.stderr
    assert "param TIMES has no value and no default: add TIMES=… to" in errors[0], errors
    assert f"{package}/.env" in errors[0] and f".env.{PROJECT}" in errors[0], errors
    assert "GREETING" not in errors[0]  # it has a default


def test_a_bad_line_or_reserved_key_is_refused_with_its_line(package, cli_emulator):
    (package / ".env").write_text("# settings\nTIMES=2\nPORT=9000\n")
    finished = deploy(package, cli_emulator)
    assert finished.returncode != 0
    assert error_lines(finished) == [f"Error: {package}/.env:3: Key PORT is reserved for internal use."], finished.stderr
    (package / ".env").write_text("TIMES=2\nFIREBASE_THING=1\n")
    assert error_lines(deploy(package, cli_emulator)) == [
        f"Error: {package}/.env:2: Key FIREBASE_THING starts with a reserved prefix (X_GOOGLE_ FIREBASE_ EXT_ KIT_)"]
    (package / ".env").write_text("TIMES=2\n\nthis is not a setting\n")
    assert error_lines(deploy(package, cli_emulator)) == [
        f"Error: {package}/.env:3: not a KEY=value line: this is not a setting"]
    (package / ".env").write_text("TIMES=two\n")
    assert error_lines(deploy(package, cli_emulator)) == [
        f"Error: {package}/.env:1: TIMES must be a whole number, not 'two'"]
    # What this runtime's workers read about where they run is not the package's to set.
    (package / ".env").write_text("TIMES=2\nFUNCTIONS_EMULATOR=true\n")
    assert error_lines(deploy(package, cli_emulator))[0].startswith(
        f"Error: {package}/.env:2: Key FUNCTIONS_EMULATOR is reserved for this runtime")


def test_a_missing_secret_fails_the_deploy_in_one_line(package, cli_emulator):
    (package / ".env").write_text("TIMES=2\n")
    finished = deploy(package, cli_emulator)
    assert finished.returncode != 0
    assert error_lines(finished) == [f"Error: secret API_KEY has no value: add API_KEY=… to {package}/.secret.local "
                                     "(the emulator's Secret Manager; keep it out of git)"], finished.stderr
    # A secret's value in .env would reach every function: refused.
    (package / ".env").write_text(f"TIMES=2\nAPI_KEY={SECRET_VALUE}\n")
    finished = deploy(package, cli_emulator)
    assert error_lines(finished) == [f"Error: {package}/.env:2: API_KEY is a secret: its value goes in .secret.local "
                                     "for the emulator and in Secret Manager for production, not in a .env file"]
    assert SECRET_VALUE not in finished.stdout + finished.stderr
    # A bad line of .secret.local is named, not quoted.
    (package / ".env").write_text("TIMES=2\n")
    (package / ".secret.local").write_text(f'API_KEY="{SECRET_VALUE}\n')
    finished = deploy(package, cli_emulator)
    assert error_lines(finished) == [f"Error: {package}/.secret.local:1: not a KEY=value line (or a quote left open)"]
    assert SECRET_VALUE not in finished.stdout + finished.stderr


def test_params_come_from_each_env_file_in_order(package, cli_emulator):
    """.env, then .env.<project>, then .env.local (emulator only), a later file winning; quotes and
    escapes as the Firebase CLI reads them; a secret from .secret.local."""
    (package / ".env").write_text("GREETING=Hi   # a comment\nTIMES=2\nOTHER='kept $as written'\n")
    (package / f".env.{PROJECT}").write_text("export TIMES=3\n")
    (package / ".env.local").write_text('GREETING="Hey \\"you\\""\n')
    (package / ".secret.local").write_text(f"API_KEY={SECRET_VALUE}\n")
    finished = deploy(package, cli_emulator)
    assert finished.returncode == 0, finished.stderr
    assert get(url(cli_emulator, "hello")) == (200, f'v1 Hey "you" x3 key={len(SECRET_VALUE)}')
    listing = run_cli("functions:list", "--emulator", cli_emulator.base, "--project", PROJECT, "--json")
    params = {param["name"]: param for param in json.loads(listing.stdout)["params"]}
    assert params["TIMES"] == {"name": "TIMES", "type": "int", "value": "3"}
    assert params["OTHER"] == {"name": "OTHER", "type": "env", "value": "kept $as written"}
    assert params["API_KEY"]["value"] == "********"
    # Without .env.local (production), .env's greeting.
    (package / ".env.local").unlink()
    assert deploy(package, cli_emulator).returncode == 0
    assert get(url(cli_emulator, "hello")) == (200, f"v1 Hi x3 key={len(SECRET_VALUE)}")


def test_a_secret_is_read_only_where_declared_and_never_shown(package, cli_emulator):
    assert get(url(cli_emulator, "hello"))[0] == 200
    # peek did not declare the secret: its worker is not given it, and reading it fails.
    status, body = get(url(cli_emulator, "peek"))
    assert status == 500 and SECRET_VALUE not in body
    shown = [
        run_cli("functions:list", "--emulator", cli_emulator.base, "--project", PROJECT).stdout,
        run_cli("functions:list", "--emulator", cli_emulator.base, "--project", PROJECT, "--json").stdout,
        run_cli("functions:log", "--emulator", cli_emulator.base, "--project", PROJECT).stdout,
        get(f"{cli_emulator.base}/emulator/v1/projects/{PROJECT}/functions")[1],
        cli_emulator.log.read_text(),
    ]
    assert "answering with a key of" in shown[2], shown[2]
    assert "did not declare the secret API_KEY" in shown[2], shown[2]
    for text in shown:
        assert SECRET_VALUE not in text
    assert "API_KEY (secret) = ********" in shown[0], shown[0]


def test_cloud_run_gets_the_env_files_but_not_env_local_and_the_secret_from_secret_manager(package, cli_emulator):
    (package / ".env.local").write_text("GREETING=local only\n")
    (package / ".env.real-project").write_text("TIMES=9\n")
    finished = run_cli("deploy", "--source", str(package), "--configuration", "debug", "--scratch-path", SCRATCH,
                       "--target", "cloud-run", "--project", "real-project", "--dry-run")
    assert finished.returncode == 0, finished.stderr
    script = finished.stdout
    (package / ".env.local").unlink()
    hello = script[script.index("gcloud run deploy hello"):]
    hello = hello[:hello.index("\n\n")]
    assert "GREETING=Hi" in hello and "TIMES=9" in hello and "local only" not in script
    assert 'OTHER=kept \\$as written' in hello
    assert '--set-secrets="API_KEY=API_KEY:$SECRET_API_KEY_VERSION"' in hello
    assert "SECRET_API_KEY_VERSION=\"$(gcloud secrets versions describe latest --secret=API_KEY" in script
    assert "--role=roles/secretmanager.secretAccessor" in script
    peek = script[script.index("gcloud run deploy peek"):]
    assert "--set-secrets" not in peek.split("\n\n")[0]
    assert SECRET_VALUE not in script
    # Knative: the same values as env entries, the secret from the Kubernetes Secret named after it.
    knative = run_cli("deploy", "--source", str(package), "--configuration", "debug", "--scratch-path", SCRATCH,
                      "--target", "knative", "--image", "registry.example.com/loop:1", "--project", "real-project",
                      "--dry-run")
    assert knative.returncode == 0, knative.stderr
    assert "kubectl create secret generic api-key --from-literal=API_KEY=VALUE" in knative.stderr
    hello = knative.stdout[knative.stdout.index("name: hello"):]
    hello = hello[:hello.index("==> ")] if "==> " in hello else hello
    for expected in ("- name: TIMES\n", 'value: "9"', "- name: API_KEY\n", "secretKeyRef:", "name: api-key",
                     "key: API_KEY"):
        assert expected in hello, (expected, hello)
    assert SECRET_VALUE not in knative.stdout


def test_debug_runs_one_function_for_a_debugger_while_the_others_deliver(package, cli_emulator):
    finished = run_cli("debug", "hello", "--source", str(package), "--scratch-path", SCRATCH,
                       "--emulator", cli_emulator.base, "--project", PROJECT)
    assert finished.returncode == 0, finished.stderr
    pid = int(re.search(r"lldb --attach-pid (\d+)", finished.stdout).group(1))
    assert f'"pid": {pid}' in finished.stdout
    status, description, _ = cli_emulator.request("GET", f"/emulator/v1/projects/{PROJECT}/functions")
    hello = description["functions"]["hello"]
    assert hello["debugging"] is True and hello["maxInstances"] == 1
    assert [instance["pid"] for instance in hello["instances"]] == [pid]
    environment = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    assert b"FUNCTIONS_DEBUG=true" in environment and b"FUNCTION_TARGET=hello" in environment
    assert get(url(cli_emulator, "hello"))[0] == 200
    # The others run as usual.
    assert description["functions"]["copy"]["debugging"] is False
    cli_emulator.request("PUT", f"/load/debugged.json?ns={PROJECT}-default-rtdb", {"n": 1})
    cli_emulator.request("GET", f"/emulator/v1/projects/{PROJECT}/events?wait=true")
    assert cli_emulator.request("GET", f"/seen/debugged.json?ns={PROJECT}-default-rtdb")[1] == {"n": 1}


@pytest.fixture(scope="module")
def watched(package, tmp_path_factory):
    """The package served by `emulators:start --watch`."""
    log = tmp_path_factory.mktemp("watch") / "emulator.log"
    process, emulator = start_emulator(log, "--watch", "--source", str(package), "--scratch-path", SCRATCH)
    emulator.log = log
    wait_for(lambda: "watching" in log.read_text(), what="the first deploy", within=900)
    yield emulator
    stop(process)


def wait_for(condition, what, within=300):
    """Checks `condition` until it holds (the watcher polls the files; there is no event to wait on)."""
    deadline = time.monotonic() + within
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def build_state(emulator):
    return emulator.request("GET", f"/emulator/v1/projects/{PROJECT}/functions")[1].get("build") or {}


def test_a_save_deploys_the_new_code_without_losing_an_event(package, watched):
    source = package / "Sources" / "Loop" / "Loop.swift"
    assert get(url(watched, "hello"))[1].startswith("v1 ")
    written = []
    stopping = threading.Event()

    def write_load():
        while not stopping.is_set():
            key = f"w{len(written)}"
            status, _, _ = watched.request("PUT", f"/load/{key}.json?ns={PROJECT}-default-rtdb", {"n": len(written)})
            assert status == 200
            written.append(key)
            stopping.wait(0.02)

    writer = threading.Thread(target=write_load)
    writer.start()
    try:
        source.write_text(SOURCE.replace("VERSION", "v2"))
        wait_for(lambda: get(url(watched, "hello"))[1].startswith("v2 "), what="the new code")
        count = len(written)
        wait_for(lambda: len(written) >= count + 20, what="writes after the swap")
    finally:
        stopping.set()
        writer.join()
    watched.request("GET", f"/emulator/v1/projects/{PROJECT}/events?wait=true")
    seen = watched.request("GET", f"/seen.json?ns={PROJECT}-default-rtdb")[1] or {}
    assert sorted(seen) == sorted(written), set(written) - set(seen)
    assert len(written) > 40


def test_a_burst_of_saves_makes_one_build(package, watched):
    source = package / "Sources" / "Loop" / "Loop.swift"
    working = source.read_text()
    builds = watched.log.read_text().count("› building ")
    for number in range(5):
        source.write_text(working.replace('response.send("', f'response.send("burst{number} " + "'))
        time.sleep(0.02)
    wait_for(lambda: get(url(watched, "hello"))[1].startswith("burst4 "), what="the last save's code")
    assert watched.log.read_text().count("› building ") == builds + 1
    source.write_text(working)
    wait_for(lambda: not get(url(watched, "hello"))[1].startswith("burst"), what="the code before the burst")


def test_a_build_error_keeps_the_old_code_serving_and_is_shown_once(package, watched):
    source = package / "Sources" / "Loop" / "Loop.swift"
    working = source.read_text()
    version = "v2 " if "v2 " in working else "v1 "
    source.write_text(working.replace('response.send("', 'response.send(undefinedName + "'))
    wait_for(lambda: build_state(watched).get("state") == "failed", what="the failed build")
    log = watched.log.read_text()
    # The compiler's diagnostic, with the file and line, printed once.
    assert len(re.findall(r"Loop\.swift:\d+:\d+: error: cannot find 'undefinedName' in scope", log)) == 1, log
    assert "the previous deployment keeps serving" in log
    assert "cannot find 'undefinedName' in scope" in build_state(watched)["output"]
    assert get(url(watched, "hello"))[1].startswith(version)
    source.write_text(working.replace(version, "v3 "))
    wait_for(lambda: get(url(watched, "hello"))[1].startswith("v3 "), what="the fixed code")
    assert build_state(watched).get("state") == "deployed"
