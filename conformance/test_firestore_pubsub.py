"""Firestore and Pub/Sub functions, driven by Google's own Python clients with only the variables
`functions emulators:env` prints.

The sample's `onGameScoreDocument` keeps `leaderboards/{player}` at each player's best
non-cheat score of the `gameScores` documents; `onScoreSubmitted` turns each JSON message on
the topic `score-submissions` into a `gameScores` document. The clients write and publish; the
test waits on a Firestore listener for the leaderboard the functions keep.
"""

import json
import os
import select
import subprocess
import threading

import pytest

from conftest import PROJECT


@pytest.fixture(scope="module")
def google_env(emulator):
    printed = emulator.cli("emulators:env")
    assert printed.returncode == 0, printed.stderr
    variables = {}
    for line in printed.stdout.splitlines():
        assert line.startswith("export "), line
        name, value = line[len("export "):].split("=", 1)
        variables[name] = value
    assert "FIRESTORE_EMULATOR_HOST" in variables and "PUBSUB_EMULATOR_HOST" in variables, printed.stdout
    saved = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    yield variables
    # Later tests start emulators of their own: they must not find these.
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def wait_for_best(client, player, best, timeout=60):
    """Waits, on a Firestore listener, until leaderboards/{player} holds {"best": best}."""
    reached = threading.Event()
    seen = []

    def changed(snapshots, _changes, _time):
        for snapshot in snapshots:
            data = snapshot.to_dict() if snapshot.exists else None
            seen.append(data)
            if data == {"best": best}:
                reached.set()

    watch = client.document(f"leaderboards/{player}").on_snapshot(changed)
    try:
        assert reached.wait(timeout), f"leaderboards/{player} went through {seen}, never {{'best': {best}}}"
    finally:
        watch.unsubscribe()


def test_firestore_writes_keep_the_leaderboard(google_env):
    from google.cloud import firestore

    client = firestore.Client(project=PROJECT)
    for score_id, player, score, cheat in [("f1", "ann", 10, False), ("f2", "ben", 7, False),
                                           ("f3", "ann", 4, False), ("f4", "ann", 12, False),
                                           ("f5", "ben", 99, True)]:
        client.document(f"gameScores/{score_id}").set({"playerName": player, "score": score, "cheatMode": cheat})
    wait_for_best(client, "ann", 12)
    wait_for_best(client, "ben", 7)
    # Every delivery is done, and none failed.
    events = [event for event in google_env_events() if event["type"].startswith("google.cloud.firestore")]
    assert events and all(delivery["status"] == "succeeded" for event in events for delivery in event["deliveries"])


def google_env_events():
    import urllib.request

    base = os.environ["FUNCTIONS_EMULATOR_URL"]
    request = urllib.request.Request(f"{base}/emulator/v1/projects/{PROJECT}/events?wait=true")
    request.add_header("Authorization", "Bearer owner")
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.loads(response.read())["events"]


def test_pubsub_messages_become_documents(google_env):
    from google.cloud import firestore, pubsub_v1

    publisher = pubsub_v1.PublisherClient()
    topic = publisher.topic_path(PROJECT, "score-submissions")
    ids = [publisher.publish(topic, json.dumps({"playerName": "cy", "score": score}).encode()).result(timeout=60)
           for score in [33, 41, 12]]
    client = firestore.Client(project=PROJECT)
    wait_for_best(client, "cy", 41)
    documents = {document.id: document.to_dict() for document in client.collection("gameScores").stream()}
    for message_id, score in zip(ids, [33, 41, 12]):
        assert documents[message_id] == {"playerName": "cy", "score": score, "cheatMode": False}


def test_google_emulators_stop_when_the_emulator_is_killed(emulator, tmp_path):
    """A SIGKILL of the emulator leaves no Java emulator running: they stop by themselves."""
    own = {name: value for name, value in os.environ.items() if not name.endswith("_EMULATOR_HOST")}
    process = subprocess.Popen(
        [emulator.binary, "emulators:start", "--in-memory", "--port", "0", "--project", PROJECT,
         "--firestore", "--pubsub"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=own,
    )
    try:
        line = process.stdout.readline()
        assert line.startswith("ready: "), line
        base = line[len("ready: "):].strip()
        printed = subprocess.run([emulator.binary, "emulators:env", "--emulator", base], capture_output=True,
                                 text=True, timeout=60)
        ports = [line.rsplit(":", 1)[1] for line in printed.stdout.splitlines()
                 if line.startswith(("export FIRESTORE_EMULATOR_HOST=", "export PUBSUB_EMULATOR_HOST="))]
        assert len(ports) == 2, printed.stdout
        javas = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as file:
                    command = file.read().split(b"\0")
            except OSError:
                continue
            if command and command[0].endswith(b"java") and any(f"--port={port}".encode() in command for port in ports):
                javas.append(int(pid))
        assert len(javas) == 2, f"found Java processes {javas} for ports {ports}"
        handles = [os.pidfd_open(pid) for pid in javas]
    finally:
        process.kill()
        process.wait(timeout=30)
    # Each pidfd becomes readable when its process has exited.
    for handle, pid in zip(handles, javas):
        ready, _, _ = select.select([handle], [], [], 30)
        assert ready, f"Java process {pid} still runs 30 s after the emulator was killed"
        os.close(handle)
