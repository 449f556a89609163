"""The sample functions in functions/, deployed to the emulator, observed through firebase-admin."""

import concurrent.futures
import os
import random
import uuid

import pytest
from firebase_admin import auth, db

from conftest import PROJECT

pytestmark = pytest.mark.skipif(os.environ.get("CONFORMANCE_DEPLOY", "1") == "0", reason="functions not deployed")


def test_creating_a_user_writes_its_profile(app, emulator):
    uid = f"fn-{uuid.uuid4().hex[:10]}"
    auth.create_user(uid=uid, email=f"{uid}@example.com", display_name="Grace")
    emulator.wait_for_deliveries()
    profile = db.reference(f"/users/{uid}").get()
    assert profile["email"] == f"{uid}@example.com"
    assert profile["displayName"] == "Grace"
    assert profile["createdAt"].endswith("Z")


def test_scores_keep_each_players_best(app, emulator):
    """Clients push Parse-style GameScore objects; the leaderboard keeps each player's best score."""
    player = f"p{uuid.uuid4().hex[:8]}"
    scores = db.reference("/scores")
    for score in (10, 30, 20):
        scores.push({"playerName": player, "score": score, "cheatMode": False})
        emulator.wait_for_deliveries()
    assert db.reference(f"/leaderboard/{player}").get() == 30
    # A cheater's score never reaches the leaderboard.
    scores.push({"playerName": player, "score": 1000, "cheatMode": True})
    emulator.wait_for_deliveries()
    assert db.reference(f"/leaderboard/{player}").get() == 30


def test_concurrent_scores_never_lower_the_best(app, emulator):
    """Scores written at once from many threads: the transaction keeps the maximum."""
    player = f"c{uuid.uuid4().hex[:8]}"
    values = list(range(1, 41))
    random.Random(7).shuffle(values)
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(lambda v: db.reference("/scores").push({"playerName": player, "score": v}), values))
    emulator.wait_for_deliveries()
    assert db.reference(f"/leaderboard/{player}").get() == 40


def test_publishing_a_template_pings_push_rc_devices(app, emulator):
    status, device, _ = emulator.request("POST", f"/emulator/v1/projects/{PROJECT}/devices", {"platform": "ios"})
    token = device["token"]
    status, _, _ = emulator.request("POST", "/iid/v1:batchAdd",
                                    {"to": "/topics/PUSH_RC", "registration_tokens": [token]})
    assert status == 200
    status, _, headers = emulator.request("GET", f"/v1/projects/{PROJECT}/remoteConfig")
    etag = {k.lower(): v for k, v in headers.items()}["etag"]
    status, body, _ = emulator.request(
        "PUT", f"/v1/projects/{PROJECT}/remoteConfig",
        {"parameters": {"welcome": {"defaultValue": {"value": "hi"}}}}, headers={"If-Match": etag},
    )
    assert status == 200, body
    emulator.wait_for_deliveries()
    status, inbox, _ = emulator.request("GET", f"/emulator/v1/projects/{PROJECT}/devices/{token}/messages")
    assert [m["data"] for m in inbox["messages"]] == [{"CONFIG_STATE": "STALE"}]
    assert inbox["messages"][0]["apns"]["payload"]["aps"]["content-available"] == 1


def test_the_stale_loop_with_50_subscribed_and_5_other_devices(app, emulator):
    """The device side against the deployed sample: `functions demo:stale-loop` with the Swift client model."""
    run = emulator.cli("demo:stale-loop", "--devices", "50", "--others", "5")
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert "4. pushConfig's {\"CONFIG_STATE\": \"STALE\"} reached 50 devices; 50 marked their config stale" in lines
    fetched = [line for line in lines if "stale, fetched from the emulator" in line]
    cached = [line for line in lines if "(not on PUSH_RC): served from its cache" in line]
    assert len(fetched) == 50 and len(cached) == 5, run.stdout
    assert lines[-1].startswith("6. device 1's realtime listener saw version ")
    assert lines[-1].endswith("change: welcome_message")


def test_importing_parse_scores_fires_the_leaderboard_function(app, emulator, tmp_path):
    """A Parse GameScore export imported with `functions database:import` fires onScoreWrite per object."""
    player = f"parse{uuid.uuid4().hex[:8]}"
    export = tmp_path / "GameScore.json"
    export.write_text(
        '{"results": ['
        f'{{"objectId": "{player}a", "playerName": "{player}", "score": 12, "cheatMode": false}},'
        f'{{"objectId": "{player}b", "playerName": "{player}", "score": 40, "cheatMode": false}},'
        f'{{"objectId": "{player}c", "playerName": "{player}", "score": 99, "cheatMode": true}},'
        f'{{"objectId": "{player}d", "playerName": "{player}", "score": 25, "cheatMode": false}}]}}'
    )
    run = emulator.cli("database:import", str(export), "--from", "parse", "--path", "/scores")
    assert run.returncode == 0, run.stderr
    emulator.wait_for_deliveries()
    assert db.reference(f"/leaderboard/{player}").get() == 40


def test_function_logs_are_printed_and_followed_by_the_cli(app, emulator):
    """`functions functions:log --follow` prints onScoreWrite's line as it is written; without
    --follow the same line is listed with its severity and event."""
    import json
    import queue
    import subprocess
    import threading

    player = f"log{uuid.uuid4().hex[:8]}"
    follow = subprocess.Popen([emulator.binary, "functions:log", "--follow", "--only", "onScoreWrite", "--limit", "1",
                               "--emulator", emulator.base, "--project", PROJECT],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    lines = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in follow.stdout], daemon=True).start()
    try:
        db.reference(f"/scores/{player}a").set({"playerName": player, "score": 12, "cheatMode": False})
        while True:
            line = lines.get(timeout=60)
            if line.rstrip().endswith(f"new best score for {player}: 12"):
                break
        assert " INFO onScoreWrite [event " in line, line
    finally:
        follow.terminate()
        follow.wait(timeout=30)

    listed = emulator.cli("functions:log", "--only", "onScoreWrite", "--json", "--limit", "1000")
    assert listed.returncode == 0, listed.stderr
    entries = [json.loads(line) for line in listed.stdout.splitlines()]
    assert entries and all(entry["function"] == "onScoreWrite" for entry in entries)
    mine = [entry for entry in entries if entry["message"] == f"new best score for {player}: 12"]
    assert len(mine) == 1 and mine[0]["severity"] == "INFO" and mine[0]["eventId"], mine
    errors = emulator.cli("functions:log", "--severity", "ERROR", "--json", "--limit", "1000")
    assert errors.returncode == 0, errors.stderr
    errors = [json.loads(line) for line in errors.stdout.splitlines()]
    assert all(entry["severity"] == "ERROR" for entry in errors) and mine[0] not in errors
    refused = emulator.cli("functions:log", "--severity", "LOUD")
    assert refused.returncode != 0 and "severity must be one of" in refused.stderr, refused.stderr


def test_deploy_only_serves_the_chosen_functions(tmp_path):
    """`functions deploy --only onUserCreated`: the other functions get no events and are not listed."""
    import json
    import subprocess
    from conftest import ROOT

    binary = os.environ.get("FUNCTIONS_BIN", str(ROOT / ".build" / "debug" / "functions"))
    process = subprocess.Popen([binary, "emulators:start", "--in-memory", "--port", "0", "--project", "only-demo"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        base = process.stdout.readline()[len("ready: "):].strip()
        common = ["--emulator", base, "--project", "only-demo"]
        subprocess.run([binary, "deploy", "--source", str(ROOT / "functions"), "--only", "onUserCreated",
                        "--configuration", os.environ.get("CONFIGURATION", "debug"),
                        "--scratch-path", os.environ.get("SCRATCH_PATH", str(ROOT / ".build")), *common],
                       check=True, capture_output=True, timeout=600)
        listed = json.loads(subprocess.run([binary, "functions:list", "--json", *common], check=True,
                                           capture_output=True, text=True).stdout)
        assert sorted(listed["endpoints"]) == ["onUserCreated"]
        subprocess.run([binary, "database:set", "/scores/s1", '{"playerName": "q", "score": 5}', *common],
                       check=True, capture_output=True)
        log = json.loads(subprocess.run([binary, "events:log", "--json", "--wait", *common], check=True,
                                        capture_output=True, text=True).stdout)
        assert all(not event["deliveries"] for event in log["events"]), log
        leaderboard = subprocess.run([binary, "database:get", "/leaderboard/q", *common], check=True,
                                     capture_output=True, text=True).stdout.strip()
        assert leaderboard == "null"
        refused = subprocess.run([binary, "trigger", "onScoreWrite", "--data", "{}", *common],
                                 capture_output=True, text=True)
        assert refused.returncode != 0 and "no deployed function" in refused.stderr, refused.stderr
    finally:
        process.terminate()
        process.wait(timeout=30)
