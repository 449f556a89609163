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

Run it with a Python that has google-cloud-firestore and google-cloud-pubsub, such as the
conformance venv `./test.sh` makes:

    .build/conformance-venv/bin/python Benchmarks/firestore-pubsub-latency.py [--samples 50] [--no-build]
"""

import argparse
import json
import os
import statistics
import subprocess
import threading
import time
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=50)
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
    finally:
        emulator.terminate()
        emulator.wait(timeout=60)


if __name__ == "__main__":
    main()
