#!/usr/bin/env python3
"""The trigger pipeline now against an earlier commit's, side by side in one run.

Builds in release, from the working tree and from COMMIT (checked out in a temporary git
worktree, built in `.build-trigger-commit`), the `functions` CLI and the sample `functions/`
package's worker (`AppFunctions`). Then, ROUNDS times, with the build that goes first taking
turns, runs each build the same way: its emulator on a fresh data folder, its worker deployed,
scores pushed by wrk (2 threads, CONNECTIONS connections, DURATION seconds; each write fires
`onScoreWrite`), until every event is done. Each run prints the writes/s wrk saw, the events/s
end to end (scores written ÷ the load and the drain), the CPU per event of the emulator and
of its worker processes (from /proc, over the load and the drain) and the p50 and p99 from a
write's commit to its function's end; then come the medians and the
medians of the per-pair ratios, new ÷ old, with their range. A run that leaves an event not done
or a delivery failed, or the leaderboard wrong, stops the comparison with an error.

`Benchmarks/trigger-load.sh` measures one build in full (latencies, a `kill -9` restart); this
one compares two, which on shared machines that drift by tens of percent within minutes is the
way to see a change of a few percent. Needs wrk.

    python3 Benchmarks/trigger-vs-commit.py COMMIT [--rounds 4] [--duration 10] [--connections 16] [--no-build]
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from trigger_outcome import outcome, percentile_ms, stages, summary

ROOT = Path(__file__).resolve().parent.parent
PROJECT = "demo-project"
DATABASE = "ns=demo-project-default-rtdb"
TICK = os.sysconf("SC_CLK_TCK")
# The same pushes as trigger-load.sh: 20 players, scores cycling through 0-999.
PUSHES = ROOT / "Benchmarks" / "score-pushes.lua"


def build(root, scratch):
    """Builds the CLI and the sample worker of the checkout at `root`; returns their folder."""
    command = ["swift", "build", "-c", "release", "--package-path", str(root / "functions"),
               "--scratch-path", str(scratch)]
    for product in ["functions", "AppFunctions"]:
        subprocess.run(command + ["--product", product], check=True, stdout=sys.stderr)
    return Path(subprocess.run(command + ["--show-bin-path"], check=True, capture_output=True,
                               text=True).stdout.strip())


def manifest(folder):
    """The worker's manifest, as `functions deploy` discovers it."""
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / "manifest.json"
        subprocess.run([str(folder / "AppFunctions")], check=True,
                       env={**os.environ, "FUNCTIONS_MANIFEST_OUTPUT_PATH": str(path)})
        return json.loads(path.read_text())


def call(url, body=None, method="GET"):
    request = urllib.request.Request(url, data=body, method=method, headers={
        "Authorization": "Bearer owner", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=600) as response:
        return json.loads(response.read() or b"null")


def ticks(pid):
    """CPU ticks of the process, and of its children: those alive and those it has reaped."""
    def fields(path):
        return open(path).read().rsplit(")", 1)[1].split()
    while True:
        own = fields(f"/proc/{pid}/stat")
        children = 0
        for child in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split():
            try:
                child_fields = fields(f"/proc/{child}/stat")
                children += int(child_fields[11]) + int(child_fields[12])
            except (FileNotFoundError, ProcessLookupError):
                pass
        again = fields(f"/proc/{pid}/stat")
        # A child reaped while they were read would count twice: read again.
        if own[13:15] == again[13:15]:
            return int(own[11]) + int(own[12]), children + int(own[13]) + int(own[14])


def run(folder, worker_manifest, options, work):
    """One run of one build; returns its figures."""
    shutil.rmtree(work / "data", ignore_errors=True)
    output, errors = open(work / "out", "w+"), open(work / "err", "w+")
    command = [str(folder / "functions"), "emulators:start", "--port", "0", "--data-dir", str(work / "data")]
    # Every event of the run stays in the event log, which the outcome is read from (builds
    # before the option kept every event anyway).
    usage = subprocess.run(command[:2] + ["--help"], capture_output=True, text=True).stdout
    if "--event-log-size" in usage:
        command += ["--event-log-size", "100000000"]
    emulator = subprocess.Popen(command, stdout=output, stderr=errors)
    workers = []
    try:
        base = None
        while base is None:
            if emulator.poll() is not None:
                errors.seek(0)
                sys.exit(f"trigger-vs-commit: the emulator of {folder} exited with status {emulator.returncode}:\n"
                         + errors.read()[-2000:])
            time.sleep(0.05)
            output.seek(0)
            base = next((line.split()[1] for line in output if line.startswith("ready: ")), None)
        call(f"{base}/emulator/v1/projects/{PROJECT}/deployments",
             json.dumps({"binary": str(folder / "AppFunctions"), "manifest": worker_manifest}).encode(), "POST")
        emulator_before, workers_before = ticks(emulator.pid)
        begin = time.monotonic()
        load = subprocess.run(["wrk", "-t2", f"-c{options.connections}", f"-d{options.duration}s", "-s",
                               str(PUSHES), base], check=True, capture_output=True, text=True).stdout
        # A refused or failed write would count in wrk's requests/s and not in the checks below.
        if "Non-2xx" in load or "Socket errors" in load:
            sys.exit(f"trigger-vs-commit: {folder}: wrk saw failed requests:\n{load}")
        call(f"{base}/emulator/v1/projects/{PROJECT}/events?wait=true&limit=1")
        seconds = time.monotonic() - begin
        emulator_after, workers_after = ticks(emulator.pid)
        workers = subprocess.run(["pgrep", "-P", str(emulator.pid)], capture_output=True, text=True).stdout.split()

        events = call(f"{base}/emulator/v1/projects/{PROJECT}/events?limit=1000000")["events"]
        scores = call(f"{base}/scores.json?{DATABASE}") or {}
        leaderboard = call(f"{base}/leaderboard.json?{DATABASE}") or {}
        undone, failed, exact, passed = outcome(events, scores, leaderboard)
        if not passed:
            sys.exit(f"trigger-vs-commit: {folder}: {summary(events, scores, undone, failed, exact)}")
        written = len(scores)
        done = [wait + running for wait, running in stages(events)]
        micros = lambda ticks: ticks / TICK * 1e6 / max(written, 1)
        return {
            "writes/s": float(re.search(r"Requests/sec:\s+([\d.]+)", load).group(1)),
            "events/s": written / seconds,
            "emulator µs": micros(emulator_after - emulator_before),
            "workers µs": micros(workers_after - workers_before),
            "done p50 ms": percentile_ms(done, 0.5),
            "done p99 ms": percentile_ms(done, 0.99),
        }
    finally:
        emulator.terminate()
        emulator.wait()
        output.close()
        errors.close()
        # The workers stop once the emulator is gone; the next run must not share the cores with them.
        deadline = time.monotonic() + 30
        while any(Path(f"/proc/{pid}").exists() for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("commit", help="the earlier commit to build from")
    parser.add_argument("--rounds", type=int, default=4, help="runs of each build, alternating")
    parser.add_argument("--duration", type=int, default=10, help="seconds of load per run")
    parser.add_argument("--connections", type=int, default=16, help="wrk's connections")
    parser.add_argument("--no-build", action="store_true", help="use the binaries already built")
    options = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("trigger-vs-commit: needs wrk (apt-get install wrk)")

    scratch = ROOT / ".build-trigger-commit"
    if options.no_build:
        old, new = scratch / "release", ROOT / ".build" / "release"
        for folder in (old, new):
            for binary in ("functions", "AppFunctions"):
                if not (folder / binary).exists():
                    sys.exit(f"trigger-vs-commit: --no-build, but {folder / binary} is not built")
    else:
        with tempfile.TemporaryDirectory() as worktree:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", worktree, options.commit],
                           check=True, stdout=sys.stderr, stderr=sys.stderr)
            try:
                # The same dependency versions as the working tree's (Package.resolved is not in git).
                for resolved in ("Package.resolved", "functions/Package.resolved"):
                    if (ROOT / resolved).exists():
                        shutil.copy(ROOT / resolved, Path(worktree) / resolved)
                old = build(Path(worktree), scratch)
            finally:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", worktree])
        new = build(ROOT, ROOT / ".build")
    builds = {"old": (old, manifest(old)), "new": (new, manifest(new))}

    figures = {"old": [], "new": []}
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        for round in range(options.rounds):
            for name in (["old", "new"] if round % 2 == 0 else ["new", "old"]):
                result = run(*builds[name], options, work)
                figures[name].append(result)
                print(f"round {round + 1} {name}: " + ", ".join(f"{key} {value:,.0f}" for key, value in result.items()),
                      file=sys.stderr)

    print(f"trigger pipeline, {options.rounds} rounds of {options.duration} s alternating {old} (old, built from "
          f"{options.commit}) and {new} (new), wrk -t2 -c{options.connections}; medians, ratios per pair")
    print(f"{'':<14}{'old':>10}{'new':>10}{'new ÷ old (range)':>24}")
    for key in figures["old"][0]:
        old_values = [row[key] for row in figures["old"]]
        new_values = [row[key] for row in figures["new"]]
        ratios = [b / a for a, b in zip(old_values, new_values)]
        print(f"{key:<14}{statistics.median(old_values):>10,.0f}{statistics.median(new_values):>10,.0f}"
              f"{statistics.median(ratios):>12.3f} ({min(ratios):.3f}–{max(ratios):.3f})")


if __name__ == "__main__":
    main()
