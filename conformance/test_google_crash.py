"""Crash safety on the Firestore and Pub/Sub paths: the emulator is killed with SIGKILL at random
moments while game servers publish score messages to Pub/Sub and clients write GameScore
documents to Firestore, then started again on the same data directory and port.

Its workers are killed with it. Google's two emulators run outside it here (FIRESTORE_EMULATOR_HOST, PUBSUB_EMULATOR_HOST), so
that their data outlives each kill, as a team's long-running ones would. GOOGLE_CRASH_ROUNDS
(default 3) rounds, CRASH_SEED (default 7) for the random moments.

What must hold at the end:
- every publish Pub/Sub acknowledged became its GameScore document, whenever the kills fell
  (the messages wait in the subscription; one pulled is acknowledged only once committed);
- every event the emulator committed is done, each delivery with success;
- each player's Firestore leaderboard is the best non-cheat score among the documents whose
  event was committed.
Google's Firestore emulator POSTs each write's event once and drops it when nothing answers:
writes made while this emulator was down fire nothing. The test counts them and says so.
"""

import json
import os
import random
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import PROJECT, ROOT
from test_crash import call, deploy_functions, kill, worker_pids_of

ROUNDS = int(os.environ.get("GOOGLE_CRASH_ROUNDS", "3"))
SEED = int(os.environ.get("CRASH_SEED", "7"))
OWNER = {"Authorization": "Bearer owner", "Content-Type": "application/json"}


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def sdk_root():
    printed = subprocess.run(["gcloud", "info", "--format=value(installation.sdk_root)"], capture_output=True,
                             text=True, timeout=120)
    root = printed.stdout.strip()
    if printed.returncode != 0 or not root:
        pytest.skip(f"the Google Cloud CLI is not installed: {printed.stderr.strip()}")
    return Path(root)


def start_google(command, ready_line):
    """Starts one of Google's emulators and returns it once it prints its ready line."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               start_new_session=True)
    ready = threading.Event()
    seen = []

    def read():
        for line in process.stdout:
            seen.append(line)
            if ready_line in line:
                ready.set()

    threading.Thread(target=read, daemon=True).start()
    if not ready.wait(120):
        process.kill()
        pytest.fail(f"{command[0]} never printed {ready_line!r}: {''.join(seen[-20:])}")
    return process


@pytest.fixture
def google_emulators(emulator):
    """Google's Firestore and Pub/Sub emulators, running beside this test's own emulator, whose
    port is chosen now so that the Firestore emulator always finds it at the same place."""
    root = sdk_root()
    port = free_port()
    firestore_port, pubsub_port = free_port(), free_port()
    jar = root / "platform/cloud-firestore-emulator/cloud-firestore-emulator.jar"
    pubsub_jars = sorted((root / "platform/pubsub-emulator/lib").glob("cloud-pubsub-emulator-*-all.jar"))
    if not jar.exists() or not pubsub_jars:
        pytest.skip("the Firestore or Pub/Sub emulator component is not installed")
    firestore = start_google(["java", "-cp", str(jar), "com.google.cloud.datastore.emulator.firestore.CloudFirestore",
                              "--host=127.0.0.1", f"--port={firestore_port}", f"--functions_emulator=127.0.0.1:{port}"],
                             "Dev App Server is now running")
    pubsub = start_google(["java", "-jar", str(pubsub_jars[-1]), "--host=127.0.0.1", f"--port={pubsub_port}"],
                          "Server started, listening on")
    hosts = {"FIRESTORE_EMULATOR_HOST": f"127.0.0.1:{firestore_port}", "PUBSUB_EMULATOR_HOST": f"127.0.0.1:{pubsub_port}"}
    saved = {name: os.environ.get(name) for name in hosts}
    os.environ.update(hosts)
    yield port, hosts
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    for process in (firestore, pubsub):
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)


def start(binary, data, port, hosts):
    process = subprocess.Popen(
        [binary, "emulators:start", "--data-dir", str(data), "--port", str(port), "--project", PROJECT],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env={**os.environ, **hosts},
    )
    line = process.stdout.readline()
    assert line.startswith("ready: "), f"the emulator printed {line!r}"
    return process


PLAYERS = 20
PAUSE = 0.05   # between one client's writes: 6 clients, about 100 writes a second in all


def publisher(topic, seed, stop, acknowledged, lock):
    """Publishes JSON scores until stopped; keeps each message id Pub/Sub acknowledged."""
    from google.cloud import pubsub_v1

    rng = random.Random(seed)
    client = pubsub_v1.PublisherClient()
    while not stop.is_set():
        entry = {"playerName": f"p{rng.randrange(PLAYERS)}", "score": rng.randrange(10_000)}
        message_id = client.publish(topic, json.dumps(entry).encode()).result(timeout=60)
        with lock:
            acknowledged[message_id] = entry
        stop.wait(PAUSE)


def writer(seed, stop, written, lock):
    """Writes GameScore documents to Firestore until stopped."""
    from google.cloud import firestore

    rng = random.Random(seed)
    client = firestore.Client(project=PROJECT)
    number = 0
    while not stop.is_set():
        entry = {"playerName": f"p{rng.randrange(PLAYERS)}", "score": rng.randrange(10_000),
                 "cheatMode": rng.random() < 0.1}
        score_id = f"w{seed:.6f}-{number}"
        client.document(f"gameScores/{score_id}").set(entry)
        number += 1
        with lock:
            written[score_id] = entry
        stop.wait(PAUSE)


def events_of(port):
    """The event log, once every delivery has finished, the retries scheduled included."""
    status, log = call("127.0.0.1", port, "GET", f"/emulator/v1/projects/{PROJECT}/events?wait=all&limit=1000000",
                       timeout=600)
    assert status == 200, log
    return log["events"]


def test_sigkill_under_firestore_and_pubsub_load_loses_no_acknowledged_event(emulator, google_emulators, tmp_path):
    from google.cloud import firestore, pubsub_v1

    port, hosts = google_emulators
    data = tmp_path / "data"
    rng = random.Random(SEED)
    published, written = {}, {}
    lock = threading.Lock()
    publisher_client = pubsub_v1.PublisherClient()
    topic = publisher_client.topic_path(PROJECT, "score-submissions")
    publisher_client.create_topic(name=topic)

    stop = threading.Event()
    threads = []
    process = None
    try:
        for round_number in range(ROUNDS):
            process = start(emulator.binary, data, port, hosts)
            if round_number == 0:
                deploy_functions(emulator.binary, "127.0.0.1", port)
                # The load starts once the subscription exists; it then runs through every kill.
                threads = [threading.Thread(target=publisher, args=(topic, rng.random(), stop, published, lock))
                           for _ in range(3)]
                threads += [threading.Thread(target=writer, args=(rng.random(), stop, written, lock))
                            for _ in range(3)]
                for thread in threads:
                    thread.start()
            time.sleep(rng.uniform(0.5, 2.0))   # the random moment of the crash
            # Its workers too: a worker killed mid-transaction leaves the Firestore emulator holding
            # the transaction's locks for a while, as a crashed client would. (That a worker stops
            # by itself when the emulator dies is test_crash's.)
            worker_pids = worker_pids_of(process)
            kill(process.pid)
            for worker_pid in worker_pids:
                kill(worker_pid)
            process.wait(timeout=30)
            process = None
        stop.set()
        for thread in threads:
            thread.join(timeout=120)

        process = start(emulator.binary, data, port, hosts)
        client = firestore.Client(project=PROJECT)
        # Every acknowledged publish becomes its document: wait on a listener until all are there.
        missing = set(published)
        arrived = threading.Event()

        def changed(snapshots, _changes, _time):
            missing.difference_update(snapshot.id for snapshot in snapshots)
            if not missing:
                arrived.set()

        watch = client.collection("gameScores").on_snapshot(changed)
        try:
            assert arrived.wait(300), f"{len(missing)} of {len(published)} acknowledged publishes never became documents"
        finally:
            watch.unsubscribe()
        documents = {document.id: document.to_dict() for document in client.collection("gameScores").stream()}
        for message_id, entry in published.items():
            assert documents[message_id] == {**entry, "cheatMode": False}
        for score_id, entry in written.items():
            assert documents[score_id] == entry

        # The Firestore emulator POSTs one write at a time, in order: once a last write's event
        # is in the log, every earlier one the emulator delivered is too.
        client.document("gameScores/zz-last").set({"playerName": "last", "score": 0, "cheatMode": True})
        deadline = time.monotonic() + 300
        while True:
            events = events_of(port)
            if any(event["subject"] == "documents/gameScores/zz-last" for event in events):
                break
            assert time.monotonic() < deadline, "the last write's event never arrived"
        events = events_of(port)
        undone = [event["id"] for event in events if not event["done"]]
        assert not undone, f"{len(undone)} events were never finished"
        failed = [event for event in events if any(d["status"] != "succeeded" for d in event["deliveries"])]
        assert not failed, f"{len(failed)} events did not succeed, e.g. {failed[:2]}"

        committed = {event["subject"].removeprefix("documents/gameScores/") for event in events
                     if event["type"] == "google.cloud.firestore.document.v1.written"}
        best = {}
        for score_id, entry in documents.items():
            if score_id in committed and not entry.get("cheatMode"):
                best[entry["playerName"]] = max(best.get(entry["playerName"], -1), entry["score"])
        leaderboard = {document.id: document.to_dict()["best"] for document in client.collection("leaderboards").stream()}
        assert leaderboard == best
        pulled = [event for event in events if event["type"] == "google.cloud.pubsub.topic.v1.messagePublished"]
        dropped = len(documents) - len(committed & set(documents))
        print(f"google crash: seed {SEED}, {ROUNDS} rounds of SIGKILL; {len(published)} acknowledged publishes, "
              f"all documents ({len(pulled)} message events, {sum(e['recoveries'] > 0 for e in events)} events sent "
              f"again by a restart); {len(written)} direct writes; {len(committed & set(documents))} of "
              f"{len(documents)} document events committed and done, {dropped} dropped by Google's Firestore "
              f"emulator while this one was down")
    finally:
        stop.set()
        if process is not None:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)
