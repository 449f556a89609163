#!/usr/bin/env python3
"""Publish → every inbox through a deployed worker, over HTTP.

Starts the emulator (release build of the `functions` CLI), deploys the sample `functions/`
project (its `pushConfig` runs in a worker process and sends through the emulator's FCM API),
registers DEVICES devices and subscribes them to PUSH_RC, then publishes PUBLISHES templates one
after the other. Each publish is timed from just before the PUT (so the publish's own commit is
inside it) until `events?wait=true` answers that its delivery is done: the worker's send has
committed by then (a topic message is stored once, and every subscribed inbox has it from that
commit on), so the figure counts the send's commit and is an upper bound (it also counts the
worker's answer and the emulator's bookkeeping). Every device's inbox is then checked to hold
the STALE message, sent between the two moments. (The message's `sendTime` is stamped before
its commit, so it is not the end point.)

    python3 Benchmarks/publish-to-inbox.py [--devices 1000] [--publishes 20] [--no-build]
"""

import argparse
import http.client
import json
import statistics
import subprocess
import tempfile
import time
from datetime import datetime
from pathlib import Path

from release_cli import cli_path
from urllib.parse import urlparse

ROOT = Path(__file__).resolve().parent.parent
PROJECT = "demo-project"
OWNER = {"Authorization": "Bearer owner", "Content-Type": "application/json"}


def request(connection, method, path, body=None, headers=OWNER):
    connection.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    response = connection.getresponse()
    data = response.read()
    if response.status >= 300:
        raise SystemExit(f"{method} {path}: {response.status} {data[:300]!r}")
    return json.loads(data) if data else None


def seconds(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--devices", type=int, default=1000)
    parser.add_argument("--publishes", type=int, default=20)
    parser.add_argument("--no-build", action="store_true", help="use the release CLI already built")
    arguments = parser.parse_args()
    cli = cli_path(not arguments.no_build)
    with tempfile.TemporaryDirectory() as work:
        out = open(Path(work) / "out", "w+")
        emulator = subprocess.Popen([str(cli), "emulators:start", "--port", "0", "--data-dir", f"{work}/data"],
                                    stdout=out, stderr=subprocess.DEVNULL)
        try:
            base = None
            while base is None:
                if emulator.poll() is not None:
                    raise SystemExit("the emulator did not start")
                out.seek(0)
                base = next((line[len("ready: "):].strip() for line in out if line.startswith("ready: ")), None)
                time.sleep(0.05)
            deploy = subprocess.run([str(cli), "deploy", "--source", str(ROOT / "functions"), "--configuration",
                                     "release", "--scratch-path", str(ROOT / ".build"), "--emulator", base],
                                    capture_output=True, text=True)
            if deploy.returncode != 0:
                raise SystemExit(f"deploy failed:\n{deploy.stderr}")
            url = urlparse(base)
            connection = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
            tokens = [request(connection, "POST", f"/emulator/v1/projects/{PROJECT}/devices", {})["token"]
                      for _ in range(arguments.devices)]
            for start in range(0, len(tokens), 1000):
                request(connection, "POST", "/iid/v1:batchAdd",
                        {"to": "/topics/PUSH_RC", "registration_tokens": tokens[start:start + 1000]})
            latencies = []
            for index in range(arguments.publishes):
                template = {"parameters": {"color": {"defaultValue": {"value": f"shade {index}"}}}}
                published = time.time()
                request(connection, "PUT", f"/v1/projects/{PROJECT}/remoteConfig", template,
                        {**OWNER, "If-Match": "*"})
                request(connection, "GET", f"/emulator/v1/projects/{PROJECT}/events?wait=true&limit=1")
                done = time.time()
                sent = set()
                for token in tokens:
                    messages = request(connection, "GET", f"/emulator/v1/projects/{PROJECT}/devices/{token}/messages")
                    newest = max((m for m in messages["messages"] if m.get("data", {}).get("CONFIG_STATE") == "STALE"),
                                 key=lambda m: m["sendTime"], default=None)
                    if newest is None or not published <= seconds(newest["sendTime"]) <= done:
                        raise SystemExit(f"publish {index}: device {token[:12]}… has no STALE message from it")
                    sent.add(newest["sendTime"])
                if len(sent) != 1:
                    raise SystemExit(f"publish {index}: the inboxes hold {len(sent)} different sends")
                latencies.append((done - published) * 1000)
        finally:
            emulator.terminate()
            emulator.wait()
    latencies.sort()
    pick = lambda p: latencies[min(len(latencies) - 1, int(len(latencies) * p))]
    print(f"{arguments.publishes} publishes, each reaching all {arguments.devices} subscribed inboxes "
          f"(pushConfig in a deployed worker, over HTTP): publish → its delivery done, the send committed "
          f"p50 {statistics.median(latencies):.1f} ms, p99 {pick(0.99):.1f} ms, max {latencies[-1]:.1f} ms")


if __name__ == "__main__":
    main()
