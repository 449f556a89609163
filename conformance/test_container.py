"""The worker binary rehearsed exactly as Cloud Run (Eventarc) and Knative run it: PORT,
K_SERVICE and FUNCTION_TARGET set, binary-mode CloudEvents (the reference vectors) POSTed to /,
answers by case, a broker-style sender that retries, and SIGTERM while a handler runs.

The binary is Tests/Fixtures/RehearsalWorker (built by `swift build --build-tests`); with
K_SERVICE set it logs Cloud Logging JSON lines on stdout, which is how the test sees what ran.
"""

import json
import os
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BIN_DIR = Path(os.environ.get("FUNCTIONS_BIN", str(ROOT / ".build" / "debug" / "functions"))).parent
FIXTURES = ROOT / "Tests" / "CloudFunctionsTests" / "Fixtures"


def vector(name):
    """A reference binary-mode event: its headers and body."""
    headers = {}
    for line in (FIXTURES / f"{name}.headers").read_text().splitlines():
        if line.strip():
            key, _, value = line.partition(":")
            headers[key.strip()] = value.strip()
    return headers, json.loads((FIXTURES / f"{name}.json").read_text())


class Container:
    """The worker process with a serverless platform's environment."""

    def __init__(self, target, grace=None):
        environment = {key: value for key, value in os.environ.items() if not key.startswith("FUNCTIONS_")}
        # PORT=0: the worker binds a free port itself and names it in its ready line.
        environment.update(PORT="0", K_SERVICE=target.lower(), K_REVISION=f"{target.lower()}-00001",
                           FUNCTION_TARGET=target, FUNCTION_SIGNATURE_TYPE="cloudevent",
                           GOOGLE_CLOUD_PROJECT="rehearsal")
        if grace is not None:
            environment["FUNCTIONS_SHUTDOWN_GRACE_SECONDS"] = str(grace)
        self.process = subprocess.Popen([str(BIN_DIR / "rehearsal-worker")], env=environment,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.lines = []
        # Notified at each line read. The worker writes an event's log line before it answers, but
        # this reader may not have read it yet when the answer arrives.
        self.read_more = threading.Condition()
        self.ready = threading.Event()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        assert self.ready.wait(60), "the worker never printed its ready line"

    def _read(self):
        for line in self.process.stdout:
            with self.read_more:
                if line.startswith("ready: "):
                    self.port = int(line.strip().rsplit(":", 1)[1])
                    self.ready.set()
                else:
                    self.lines.append(line)
                self.read_more.notify_all()

    def _entries(self):
        return [json.loads(line) for line in list(self.lines)]

    def logs(self):
        # Once the worker has exited, every line it wrote is read when the reader reaches the end.
        if self.process.poll() is not None:
            self.reader.join(30)
        return self._entries()

    def wait_for_logs(self, condition, timeout=30):
        """The log entries, once `condition(entries)` holds (fails after `timeout` seconds)."""
        with self.read_more:
            met = self.read_more.wait_for(lambda: condition(self._entries()), timeout)
        assert met, "the expected log lines never came"
        return self.logs()

    def handled(self, at_least=0):
        """The ids of the events handled, once at least `at_least` of them are logged."""
        ids = lambda entries: [entry["event.id"] for entry in entries if entry.get("message") == "handled"]
        return ids(self.wait_for_logs(lambda entries: len(ids(entries)) >= at_least))

    def post(self, headers, body, path="/"):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method="POST",
                                         headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, response.read().decode(), dict(response.headers)
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode(), dict(error.headers)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(30)


@pytest.fixture
def config_container():
    container = Container("configUpdated")
    yield container
    container.stop()


def rc_event(event_id, description):
    headers, body = vector("consumer-accepted.rc")
    headers["ce-id"] = event_id
    body = dict(body, description=description)
    return headers, body


def test_listens_on_port_and_answers_by_case(config_container):
    rc_headers, rc_body = vector("consumer-accepted.rc")
    status, _, _ = config_container.post(rc_headers, rc_body)
    assert status == 200
    assert config_container.handled(at_least=1) == [rc_headers["ce-id"]]
    # Also served at its own path.
    assert config_container.post(dict(rc_headers, **{"ce-id": "own-path"}), rc_body, path="/configUpdated")[0] == 200
    # Malformed: no ce-id. 400, which no broker retries.
    missing = {key: value for key, value in rc_headers.items() if key != "ce-id"}
    status, text, _ = config_container.post(missing, rc_body)
    assert status == 400 and "id" in text
    # Not JSON data for a typed function: 400.
    assert config_container.post(dict(rc_headers, **{"ce-id": "bad-json"}), b"{not json")[0] == 400
    # An event of another type: 400 naming both types.
    db_headers, db_body = vector("consumer-accepted.db")
    status, text, _ = config_container.post(db_headers, db_body)
    assert status == 400
    assert "google.firebase.remoteconfig.remoteConfig.v1.updated" in text and db_headers["ce-type"] in text
    # A handler failure: 500, which brokers retry.
    status, _, headers = config_container.post(*rc_event("fails-1", "fail-first"))
    assert status == 500
    # A handler outliving its 3 s timeout: 500 once it is cancelled.
    started = time.monotonic()
    status, text, _ = config_container.post(*rc_event("hangs-1", "hang"))
    assert status == 500 and "timed out after 3 s" in text
    assert time.monotonic() - started < 20
    assert set(config_container.handled(at_least=2)) == {rc_headers["ce-id"], "own-path"}
    # The log lines are Cloud Logging entries of the function and event.
    entries = config_container.wait_for_logs(lambda entries: any(entry.get("message") == "function failed"
                                                                 for entry in entries))
    failure = next(entry for entry in entries if entry.get("message") == "function failed")
    assert failure["severity"] == "ERROR"
    assert failure["function"] == "configUpdated"
    assert failure["event.id"] == "fails-1"


def test_database_events_outside_the_pattern_are_acknowledged_not_run():
    container = Container("scoreWritten")
    try:
        headers, body = vector("consumer-accepted.db")  # ref items/abc: not scores/{id}
        status, text, response_headers = container.post(headers, body)
        assert status == 200
        assert response_headers.get("X-Functions-Skipped") == "true"
        assert "does not match 'scores/{id}'" in text
        inside = dict(headers, **{"ce-id": "score-1", "ce-ref": "scores/s1", "ce-subject": "refs/scores/s1"})
        assert container.post(inside, body)[0] == 200
        assert container.handled(at_least=1) == ["score-1"]
        assert container.logs()[-1]["score"] == "s1"
    finally:
        assert container.stop() == 0


def test_broker_retries_until_every_event_is_handled_once(config_container):
    """A sender as Knative's broker behaves: retries 5xx (and no answer) with exponential backoff,
    never retries other 4xx, and sends an event at most until it is acknowledged, even when its
    source gives it twice."""
    events = [rc_event(f"evt-{index}", "fail-first" if index % 3 == 0 else "plain") for index in range(30)]
    events += [events[4], events[9]]  # duplicates from the source: same source and id
    acknowledged = set()
    attempts = {}
    for headers, body in events:
        key = (headers["ce-source"], headers["ce-id"])
        if key in acknowledged:
            continue
        delay = 0.05
        for attempt in range(1, 8):
            attempts[key] = attempt
            status, _, _ = config_container.post(headers, body)
            if 200 <= status < 300:
                acknowledged.add(key)
                break
            assert status >= 500, status
            time.sleep(delay)
            delay *= 2
    assert len(acknowledged) == 30
    handled = config_container.handled(at_least=30)
    assert sorted(handled) == sorted(f"evt-{index}" for index in range(30)), "each event handled exactly once"
    assert [attempts[(events[i][0]["ce-source"], f"evt-{i}")] for i in (0, 1, 3)] == [2, 1, 2]


def test_sigterm_lets_the_running_handler_finish_answers_503_then_exits_0():
    container = Container("configUpdated", grace=10)
    results = {}
    slow = threading.Thread(target=lambda: results.setdefault("slow", container.post(*rc_event("slow-1", "slow"))))
    slow.start()
    container.wait_for_logs(lambda entries: any(entry.get("message") == "started" for entry in entries), timeout=20)
    container.process.send_signal(signal.SIGTERM)
    # Meanwhile new events are refused with 503, which brokers retry elsewhere. (One sent before
    # the signal is handled is still admitted, and runs.)
    admitted = []
    refused = False
    for index in range(1000):
        status = container.post(*rc_event(f"late-{index}", "plain"))[0]
        if status == 503:
            refused = True
            break
        assert status == 200
        admitted.append(f"late-{index}")
    assert refused
    slow.join(30)
    assert results["slow"][0] == 200, "the running handler finished and was acknowledged"
    assert container.process.wait(30) == 0
    assert sorted(container.handled()) == sorted(["slow-1"] + admitted)
    assert any("shutting down" in entry.get("message", "") for entry in container.logs())
