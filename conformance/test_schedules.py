"""Scheduled functions on the emulator: the sample's `nightlyDigest` (every day at 03:00 UTC), run
now with `functions schedule:run`, writes the digest of the scores stored: how many, and the
three best players. A package of its own shows a one-minute schedule firing on its own, and a
task retried with its queue's backoff until it succeeds."""

import json
import os
import subprocess
import urllib.request
from datetime import datetime

import pytest

from conftest import PROJECT, ROOT, Emulator


def test_schedule_run_writes_the_digest(emulator, app):
    from firebase_admin import db

    for player, score in [("digest-a", 50), ("digest-b", 70), ("digest-c", 60), ("digest-d", 10)]:
        db.reference("/scores").push({"playerName": player, "score": score, "cheatMode": False})
    emulator.wait_for_deliveries()
    ran = emulator.cli("schedule:run", "nightlyDigest")
    assert ran.returncode == 0, ran.stderr
    assert "nightlyDigest (0 3 * * *) succeeded for the firing at " in ran.stdout, ran.stdout
    day = ran.stdout.rsplit("for the firing at ", 1)[1].strip()[:10]
    scores = db.reference("/scores").get()
    leaderboard = db.reference("/leaderboard").get()
    top = sorted(leaderboard.items(), key=lambda item: (-item[1], item[0]))[:3]
    assert db.reference(f"/digests/{day}").get() == {
        "scores": len(scores), "top": [{"playerName": player, "best": best} for player, best in top]}


def test_schedule_run_refuses_what_is_not_scheduled(emulator):
    ran = emulator.cli("schedule:run", "onScoreWrite")
    assert ran.returncode != 0 and "'onScoreWrite' is not a scheduled function" in ran.stderr, ran.stderr
    ran = emulator.cli("schedule:run", "nope")
    assert ran.returncode != 0 and "no deployed function named 'nope'" in ran.stderr, ran.stderr


def test_the_functions_listing_shows_the_schedule(emulator):
    status, body, _ = emulator.request("GET", f"/emulator/v1/projects/{PROJECT}/functions")
    assert status == 200
    schedule = body["endpoints"]["nightlyDigest"]["scheduleTrigger"]
    assert schedule["schedule"] == "0 3 * * *" and schedule["timeZone"] == "UTC"
    assert schedule["retryConfig"]["retryCount"] == 0


@pytest.fixture(scope="module")
def own_package(tmp_path_factory):
    """A package of its own, made with `functions init`, deployed to a fresh emulator: an
    every-minute schedule that records its firings, and a task queue whose handler fails its
    first two attempts."""
    binary = os.environ.get("FUNCTIONS_BIN", str(ROOT / ".build" / "debug" / "functions"))
    scratch = os.environ.get("SCRATCH_PATH", str(ROOT / ".build"))
    package = tmp_path_factory.mktemp("own") / "ticker"
    subprocess.run([binary, "init", str(package), "--package-path", str(ROOT)], check=True, capture_output=True)
    (package / "Sources" / "Ticker" / "Ticker.swift").write_text('''import Foundation
import FunctionsWorker

@main
struct Ticker: FunctionsApp {
    static func register(_ functions: inout FunctionRegistry) {
        functions["tick"] = Scheduler.every("1 minutes").options(.uses(.database)).onRun { event, context in
            _ = try await context.database.ref("ticks").push([
                "scheduleTime": .string(RFC3339Timestamp.string(from: event.scheduleTime)),
                "ranAt": .string(RFC3339Timestamp.string(from: Date())),
            ])
        }
        functions["flaky"] = Tasks.queue(retry: TaskRetryConfig(maxAttempts: 5, minBackoff: .seconds(1)))
            .onDispatch { (request: TaskRequest<JSONValue>) in
                if request.task.retryCount < 2 { throw CallableError(.unavailable, "not yet") }
            }
    }
}
''')
    (package / "Tests" / "TickerTests" / "TickerTests.swift").write_text("// The ticker has no tests of its own.\n")
    emulator = subprocess.Popen([binary, "emulators:start", "--in-memory", "--port", "0", "--project", OWN_PROJECT],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        base = emulator.stdout.readline()[len("ready: "):].strip()
        subprocess.run([binary, "deploy", "--source", str(package), "--configuration", "debug", "--scratch-path", scratch,
                        "--emulator", base, "--project", OWN_PROJECT], check=True, capture_output=True, timeout=900)
        yield Emulator(base, binary)
    finally:
        emulator.terminate()
        emulator.wait(timeout=60)


OWN_PROJECT = "ticker-demo"


def test_a_one_minute_schedule_fires_on_its_own(own_package):
    """Within a minute, with nobody asking, the schedule fires at a minute's start and its function runs."""
    # The database's event stream, as a client listens: the first put is the empty tree.
    request = urllib.request.Request(f"{own_package.base}/ticks.json?ns={OWN_PROJECT}-default-rtdb",
                                     headers={"Accept": "text/event-stream"})
    with urllib.request.urlopen(request, timeout=90) as stream:
        tick = None
        for line in stream:
            text = line.decode().strip()
            if text.startswith("data:") and "scheduleTime" in text:
                # A put at the pushed child's path: {"path": "/-N…", "data": {"scheduleTime", "ranAt"}}.
                tick = json.loads(text[len("data:"):])["data"]
                break
    assert tick is not None
    scheduled = datetime.fromisoformat(tick["scheduleTime"].replace("Z", "+00:00"))
    ran = datetime.fromisoformat(tick["ranAt"].replace("Z", "+00:00"))
    assert scheduled.second == 0 and scheduled.microsecond == 0, tick
    assert 0 <= (ran - scheduled).total_seconds() < 5, tick


def test_a_task_that_fails_twice_succeeds_on_its_third_attempt(own_package, monkeypatch):
    """firebase-admin enqueues; the handler answers 503 twice; the queue waits 1 s, then 2 s, and the
    third attempt succeeds."""
    import firebase_admin
    from firebase_admin import functions

    monkeypatch.setenv("CLOUD_TASKS_EMULATOR_HOST", own_package.host)
    app = firebase_admin.initialize_app(options={"projectId": OWN_PROJECT}, name="own-package")
    try:
        task_id = functions.task_queue("flaky", app=app).enqueue({"data": {"n": 1}})
    finally:
        firebase_admin.delete_app(app)
    status, body, _ = own_package.request("GET", f"/emulator/v1/projects/{OWN_PROJECT}/events?wait=all")
    assert status == 200, body
    status, task, _ = own_package.request(
        "GET", f"/projects/{OWN_PROJECT}/locations/us-central1/queues/flaky/tasks/{task_id}")
    assert status == 200 and task["state"] == "succeeded", task
    assert task["dispatchCount"] == 3 and task["responseCount"] == 1, task
    first = datetime.fromisoformat(task["firstAttempt"]["dispatchTime"].replace("Z", "+00:00"))
    last = datetime.fromisoformat(task["lastAttempt"]["dispatchTime"].replace("Z", "+00:00"))
    assert 2.9 <= (last - first).total_seconds() < 6, (first, last)
