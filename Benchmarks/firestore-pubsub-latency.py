#!/usr/bin/env python3
"""Firestore write → Swift function done, and Pub/Sub publish → Swift function done.

Starts the emulator (release build of the `functions` CLI, in memory), deploys the sample
`functions/` project, points Google's Python clients at Google's emulators with what
`functions emulators:env` prints, and times, one at a time:

- a `gameScores` document write (google-cloud-firestore) until `onGameScoreDocument` has
  committed the player's `leaderboards` entry, as a Firestore listener sees it: the Firestore
  emulator's POST, the commit to the outbox, the delivery to the worker, the function's own
  transaction (a read and a commit) and the listener's notification are all inside;
- a JSON message published to `score-submissions` (google-cloud-pubsub) until
  `onScoreSubmitted` has created its `gameScores` document, as a listener sees it: the pull, the
  commit, the delivery, the function's create and the notification are inside.

With `--throughput N` it then measures events per second through each path, N at once:

- N documents written in batches of 500 (each of a new player) until `onGameScoreDocument` has
  succeeded N more times;
- N messages published until `onScoreSubmitted` has succeeded N more times, and until
  `onGameScoreDocument` has succeeded for each of their documents too;
- and, beside them, the ceiling: a second Firestore emulator POSTing the same N writes to a
  receiver that only counts them (what any functions emulator behind it could take at most);
- and how fast this emulator answers such POSTs, one at a time as Google's emulator sends them:
  N copies of a captured event (its document moved under `gameScores/`, where the function
  finds no GameScore fields and returns) POSTed over one connection.

Run it with a Python that has google-cloud-firestore and google-cloud-pubsub, such as the
conformance venv `./test.sh` makes:

    .build/conformance-venv/bin/python Benchmarks/firestore-pubsub-latency.py [--samples 50] [--throughput 2000] [--no-build]
"""

import argparse
import http.client
import http.server
import json
import os
import socket
import statistics
import subprocess
import threading
import time
import urllib.request
import uuid
from pathlib import Path

from release_cli import cli_path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = "demo-project"


def timed(client, path, action, expected):
    """Runs `action` and returns the milliseconds until a listener on `path` sees `expected`."""
    seen = threading.Event()

    def changed(snapshots, _changes, _time):
        if any(snapshot.exists and expected(snapshot.to_dict()) for snapshot in snapshots):
            seen.set()

    watch = client.document(path).on_snapshot(changed)
    try:
        start = time.perf_counter()
        action()
        if not seen.wait(60):
            raise SystemExit(f"{path} never reached the expected state")
        return (time.perf_counter() - start) * 1000
    finally:
        watch.unsubscribe()


def summary(name, samples):
    samples = sorted(samples)
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    return f"{name}: {len(samples)} samples, p50 {statistics.median(samples):.1f} ms, p99 {p99:.1f} ms, max {samples[-1]:.1f} ms"


def succeeded(base, function):
    """How many events `function` has finished with success."""
    with urllib.request.urlopen(urllib.request.Request(f"{base}/emulator/v1/projects/{PROJECT}/functions:stats",
                                                       headers={"Authorization": "Bearer owner"})) as answer:
        for entry in json.loads(answer.read())["functions"]:
            if entry["function"] == function:
                return entry["succeeded"]
    return 0


def until_succeeded(base, function, count, start):
    """Seconds from `start` until `function` has succeeded `count` times in all."""
    deadline = time.monotonic() + 600
    while succeeded(base, function) < count:
        if time.monotonic() > deadline:
            raise SystemExit(f"{function} never reached {count} successes")
        time.sleep(0.05)
    return time.perf_counter() - start


def write_batches(client, count, prefix):
    """Writes `count` GameScore documents, each of a new player, in batches of 500."""
    for first in range(0, count, 500):
        batch = client.batch()
        for index in range(first, min(count, first + 500)):
            batch.set(client.document(f"gameScores/{prefix}{index}"),
                      {"playerName": f"{prefix}{index}", "score": index, "cheatMode": False})
        batch.commit()


def ceiling(client_module, count):
    """Writes per second a second Firestore emulator POSTs to a receiver that only counts them."""
    root = subprocess.run(["gcloud", "info", "--format=value(installation.sdk_root)"], capture_output=True,
                          text=True, check=True).stdout.strip()
    received = []
    done = threading.Event()

    class Receiver(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self):
            self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()
            received.append(time.perf_counter())
            if len(received) >= count:
                done.set()

        def log_message(self, *_):
            pass

    receiver = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    jar = f"{root}/platform/cloud-firestore-emulator/cloud-firestore-emulator.jar"
    java = subprocess.Popen(["java", "-cp", jar, "com.google.cloud.datastore.emulator.firestore.CloudFirestore",
                             "--host=127.0.0.1", f"--port={port}",
                             f"--functions_emulator=127.0.0.1:{receiver.server_address[1]}"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        for line in java.stdout:
            if "Dev App Server is now running" in line:
                break
        threading.Thread(target=java.stdout.read, daemon=True).start()
        trigger = {"eventType": "google.cloud.firestore.document.v1.written", "database": "(default)",
                   "namespace": "(default)", "document": {"value": "{path=**}", "matchType": "PATH_PATTERN"}}
        urllib.request.urlopen(urllib.request.Request(
            f"http://127.0.0.1:{port}/emulator/v1/projects/{PROJECT}/eventarcTrigger?eventarcTriggerId=t",
            data=json.dumps(trigger).encode(), headers={"Content-Type": "application/json"}, method="POST"))
        saved = os.environ["FIRESTORE_EMULATOR_HOST"]
        os.environ["FIRESTORE_EMULATOR_HOST"] = f"127.0.0.1:{port}"
        try:
            client = client_module.Client(project=PROJECT)
            write_batches(client, 100, "warm")
            while len(received) < 100:
                time.sleep(0.05)
            received.clear()
            start = time.perf_counter()
            write_batches(client, count, "c")
            if not done.wait(600):
                raise SystemExit(f"the receiver got {len(received)} of {count} POSTs")
            return count / (received[-1] - start)
        finally:
            os.environ["FIRESTORE_EMULATOR_HOST"] = saved
    finally:
        java.kill()
        java.wait()
        receiver.shutdown()


def ingest(base, count):
    """POSTs per second this emulator answers, one at a time, as the Firestore emulator sends them."""
    raw = (ROOT / "Tests/FirestoreTriggersTests/Fixtures/v2-written.create.http").read_bytes()
    head, body = raw.replace(b"\r\n", b"\n").split(b"\n\n", 1)
    headers = dict(line.split(": ", 1) for line in head.decode().splitlines()[1:])
    headers.pop("Host", None)
    headers["Content-Length"] = str(len(body))
    host, port = base.split("//", 1)[1].rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port))

    def post(number):
        headers.update({"ce-id": str(uuid.uuid4()), "ce-subject": f"documents/gameScores/i{number}",
                        "ce-document": f"gameScores/i{number}"})
        connection.request("POST", f"/functions/projects/{PROJECT}/triggers/t", body=body, headers=headers)
        answer = connection.getresponse()
        answer.read()
        if answer.status != 200:
            raise SystemExit(f"the emulator answered {answer.status}")

    for number in range(100):
        post(number)
    start = time.perf_counter()
    for number in range(100, 100 + count):
        post(number)
    return count / (time.perf_counter() - start)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=50)
    parser.add_argument("--throughput", type=int, default=0, metavar="N",
                        help="then measure events per second, N documents and N messages at once")
    parser.add_argument("--no-build", action="store_true", help="use the release CLI already built")
    arguments = parser.parse_args()
    cli = cli_path(not arguments.no_build)
    own = {name: value for name, value in os.environ.items() if not name.endswith("_EMULATOR_HOST")}
    emulator = subprocess.Popen([str(cli), "emulators:start", "--port", "0", "--in-memory", "--project", PROJECT],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=own)
    try:
        line = emulator.stdout.readline()
        if not line.startswith("ready: "):
            raise SystemExit(f"the emulator printed {line!r}")
        base = line[len("ready: "):].strip()
        subprocess.run([str(cli), "deploy", "--source", str(ROOT / "functions"), "--configuration", "release",
                        "--scratch-path", str(ROOT / ".build"), "--emulator", base, "--project", PROJECT],
                       check=True, capture_output=True)
        printed = subprocess.run([str(cli), "emulators:env", "--emulator", base, "--project", PROJECT],
                                 check=True, capture_output=True, text=True).stdout
        for line in printed.splitlines():
            name, value = line[len("export "):].split("=", 1)
            os.environ[name] = value
        from google.cloud import firestore, pubsub_v1

        client = firestore.Client(project=PROJECT)
        writes = []
        for index in range(arguments.samples + 5):
            player = f"p{uuid.uuid4().hex[:12]}"
            document = client.document(f"gameScores/{uuid.uuid4().hex}")
            writes.append(timed(client, f"leaderboards/{player}",
                                lambda: document.set({"playerName": player, "score": index, "cheatMode": False}),
                                lambda data: data.get("best") == index))
        publisher = pubsub_v1.PublisherClient()
        topic = publisher.topic_path(PROJECT, "score-submissions")
        publishes = []
        for index in range(arguments.samples + 5):
            # The document's id is the message id, known once published: wait on the leaderboard of a new player.
            player = f"q{uuid.uuid4().hex[:12]}"
            message = json.dumps({"playerName": player, "score": index}).encode()
            publishes.append(timed(client, f"leaderboards/{player}",
                                   lambda: publisher.publish(topic, message).result(timeout=60),
                                   lambda data: data.get("best") == index))
        # The first few warm the connections up.
        print(summary("Firestore write → onGameScoreDocument's leaderboard commit seen", writes[5:]))
        print(summary("Pub/Sub publish → onScoreSubmitted's document → onGameScoreDocument's leaderboard seen",
                      publishes[5:]))
        count = arguments.throughput
        if count:
            before = succeeded(base, "onGameScoreDocument")
            start = time.perf_counter()
            write_batches(client, count, f"t{uuid.uuid4().hex[:6]}-")
            seconds = until_succeeded(base, "onGameScoreDocument", before + count, start)
            print(f"Firestore: {count} documents written in batches of 500, all through onGameScoreDocument "
                  f"in {seconds:.2f} s: {count / seconds:.0f} events/s")
            documents_before = succeeded(base, "onGameScoreDocument")
            messages_before = succeeded(base, "onScoreSubmitted")
            start = time.perf_counter()
            futures = [publisher.publish(topic, json.dumps({"playerName": f"m{index}", "score": index}).encode())
                       for index in range(count)]
            for future in futures:
                future.result(timeout=120)
            pulled = until_succeeded(base, "onScoreSubmitted", messages_before + count, start)
            through = until_succeeded(base, "onGameScoreDocument", documents_before + count, start)
            print(f"Pub/Sub: {count} messages published, all through onScoreSubmitted in {pulled:.2f} s: "
                  f"{count / pulled:.0f} events/s; their documents through onGameScoreDocument in {through:.2f} s: "
                  f"{count / through:.0f} events/s")
            print(f"ceiling: Google's Firestore emulator POSTs {ceiling(firestore, count):.0f} writes/s to a receiver "
                  f"that only counts them; this emulator answers {ingest(base, count):.0f} such POSTs/s, one at a time")
    finally:
        emulator.terminate()
        emulator.wait(timeout=60)


if __name__ == "__main__":
    main()
