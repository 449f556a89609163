#!/usr/bin/env python3
"""A task queue's dispatch rate against its `maxDispatchesPerSecond`.

Starts the emulator (release build of the `functions` CLI, in memory), deploys the sample
`functions/` project, then for each rate asked deploys `recountLeaderboard` alone with that
`maxDispatchesPerSecond` (the same binary, its manifest's `rateLimits` changed) and enqueues
N tasks through the Cloud Tasks API, all scheduled for one moment a little ahead, so that
the queue alone paces them. Once they have run it reads each task's first dispatch time and
reports the rate measured over the run ((N − 1) / (last − first)), its ratio to the rate asked,
and the most dispatches in any one second (999 ms windows, as the times are to the millisecond).

    python3 Benchmarks/task-queue-rate.py [--rates 10,50,200,500] [--seconds 4] [--no-build]
"""

import argparse
import base64
import http.client
import json
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urlsplit

from release_cli import cli_path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = "demo-project"
TASKS = f"/projects/{PROJECT}/locations/us-central1/queues/recountLeaderboard/tasks"


class Client:
    def __init__(self, base):
        parts = urlsplit(base)
        self.connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=600)

    def call(self, method, path, body=None):
        headers = {"Authorization": "Bearer owner", "Content-Type": "application/json"}
        self.connection.request(method, path, None if body is None else json.dumps(body), headers)
        response = self.connection.getresponse()
        text = response.read()
        if response.status >= 300:
            raise SystemExit(f"{method} {path}: {response.status} {text[:300]!r}")
        return json.loads(text) if text else None


def seconds(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def measure(client, deployed, rate, duration):
    endpoint = json.loads(json.dumps(deployed["endpoints"]["recountLeaderboard"]))
    endpoint["taskQueueTrigger"]["rateLimits"] = {"maxDispatchesPerSecond": rate, "maxConcurrentDispatches": 1000}
    client.call("POST", f"/emulator/v1/projects/{PROJECT}/deployments", {
        "binary": deployed["binary"],
        "manifest": {"specVersion": "v1alpha1", "endpoints": {"recountLeaderboard": endpoint}},
    })
    count = max(50, int(rate * duration))
    due = datetime.fromtimestamp(time.time() + 2 + count / 500, tz=timezone.utc)
    body = base64.b64encode(json.dumps({"data": {"playerName": "rate-bench"}}).encode()).decode()
    ids = []
    for _ in range(count):
        created = client.call("POST", TASKS, {"task": {"scheduleTime": due.isoformat().replace("+00:00", "Z"),
                                                       "httpRequest": {"body": body, "headers": {"Content-Type": "application/json"}}}})
        ids.append(created["name"].rsplit("/", 1)[1])
    client.call("GET", f"/emulator/v1/projects/{PROJECT}/events?wait=all")
    listed = {task["name"].rsplit("/", 1)[1]: task for task in client.call("GET", TASKS)["tasks"]}
    times = sorted(seconds(listed[task_id]["firstAttempt"]["dispatchTime"]) for task_id in ids)
    failed = [task_id for task_id in ids if listed[task_id]["state"] != "succeeded"]
    measured = (len(times) - 1) / (times[-1] - times[0])
    # The most in any second: the dispatch times are to the millisecond, so a window of 999 ms
    # starting at a dispatch (a dispatch exactly 1 s later may read as 999 ms later).
    window = max(sum(1 for t in times if start <= t < start + 0.999) for start in times)
    late = times[0] - due.timestamp()
    print(f"asked {rate:>6g}/s: {count} tasks, measured {measured:7.2f}/s (ratio {measured / rate:.3f}), "
          f"most in one second {window}, first dispatch {late * 1000:.1f} ms after the schedule time, "
          f"{len(failed)} not succeeded")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rates", default="10,50,200,500")
    parser.add_argument("--seconds", type=float, default=4, help="how long each rate's tasks take to dispatch")
    parser.add_argument("--no-build", action="store_true")
    arguments = parser.parse_args()
    cli = cli_path(build=not arguments.no_build)
    emulator = subprocess.Popen([str(cli), "emulators:start", "--port", "0", "--in-memory", "--project", PROJECT],
                                stdout=subprocess.PIPE, text=True)
    try:
        base = emulator.stdout.readline()[len("ready: "):].strip()
        subprocess.run([str(cli), "deploy", "--source", str(ROOT / "functions"), "--configuration", "release",
                        "--scratch-path", str(ROOT / ".build"), "--emulator", base, "--project", PROJECT],
                       check=True, capture_output=True)
        client = Client(base)
        deployed = client.call("GET", f"/emulator/v1/projects/{PROJECT}/functions")
        for rate in [float(value) for value in arguments.rates.split(",")]:
            measure(client, deployed, rate, arguments.seconds)
    finally:
        emulator.terminate()
        emulator.wait(timeout=60)


if __name__ == "__main__":
    main()
