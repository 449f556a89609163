#!/usr/bin/env python3
"""The event bus now against the bus of an earlier commit, side by side in one run.

Builds `bus-benchmark` in release from the working tree and from COMMIT (checked out in a
temporary git worktree, built in `.build-bus-commit`), then runs the two binaries in alternation,
ROUNDS times each, so that each pair of runs sees the machine in the same state (these machines
are shared and drift by tens of percent within minutes). Prints, for every scenario, the median
events/s, deliveries/s and latencies of each, and the median of the per-pair ratios of
deliveries/s with their range.

Scenarios and arguments are `bus-benchmark`'s own: an older binary that does not take a scenario
name runs all of them.

    python3 Benchmarks/bus-vs-commit.py COMMIT [--rounds 3] [--events 1000000] [--functions N] [--no-build]
"""

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROW = re.compile(r"^(match one|fan-out|typed \(decode\)|database)\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([\d.]+)\s*$")


def build(package, scratch):
    """Builds bus-benchmark of the package in release; returns the binary. It is in the package's
    `Benchmarks/` package since that has one; before, it was in the root package."""
    if (Path(package) / "Benchmarks" / "Package.swift").exists():
        package = Path(package) / "Benchmarks"
    command = ["swift", "build", "-c", "release", "--package-path", str(package)]
    if scratch:
        command += ["--scratch-path", str(scratch)]
    subprocess.run(command + ["--product", "bus-benchmark"], check=True, stdout=sys.stderr)
    path = subprocess.run(command + ["--show-bin-path"], check=True, capture_output=True, text=True).stdout.strip()
    return Path(path) / "bus-benchmark"


def run(binary, events, functions):
    arguments = [str(binary), str(events)] + ([str(functions)] if functions else [])
    output = subprocess.run(arguments, check=True, capture_output=True, text=True).stdout
    rows = {}
    for line in output.splitlines():
        match = ROW.match(line)
        if match:
            rows[(match.group(1), int(match.group(2)))] = tuple(float(match.group(i)) for i in range(3, 7))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("commit", help="the earlier commit to build the benchmark from")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each binary, alternating")
    parser.add_argument("--events", type=int, default=1_000_000, help="events per throughput run")
    parser.add_argument("--functions", type=int, help="run only this function count (1, 10 or 100)")
    parser.add_argument("--no-build", action="store_true", help="use the binaries already built")
    options = parser.parse_args()

    scratch = ROOT / ".build-bus-commit"
    with tempfile.TemporaryDirectory() as worktree:
        if options.no_build:
            old = scratch / "release" / "bus-benchmark"
            new = ROOT / ".build" / "release" / "bus-benchmark"
        else:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", worktree, options.commit],
                           check=True, stdout=sys.stderr, stderr=sys.stderr)
            try:
                old = build(worktree, scratch)
            finally:
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", worktree], check=True)
            new = build(ROOT, None)

        pairs = []
        for round in range(options.rounds):
            print(f"round {round + 1} of {options.rounds}", file=sys.stderr)
            pairs.append((run(old, options.events, options.functions), run(new, options.events, options.functions)))

    print(f"bus-benchmark {options.events} events per run, {options.rounds} rounds alternating "
          f"{options.commit} (old) and the working tree (new); medians, old in brackets")
    print(f"{'scenario':<16}{'functions':>9}{'events/s':>24}{'deliveries/s':>26}{'p50 µs':>16}{'p99 µs':>16}"
          f"{'new ÷ old (range)':>22}")
    for key in pairs[0][0]:
        if not all(key in old and key in new for old, new in pairs):
            continue
        old = [pair[0][key] for pair in pairs]
        new = [pair[1][key] for pair in pairs]
        median = lambda rows, column: statistics.median(row[column] for row in rows)
        ratios = [b[1] / a[1] for a, b in zip(old, new)]
        cells = [f"{median(new, c):,.0f} ({median(old, c):,.0f})" for c in (0, 1)]
        cells += [f"{median(new, c):.1f} ({median(old, c):.1f})" for c in (2, 3)]
        print(f"{key[0]:<16}{key[1]:>9}{cells[0]:>24}{cells[1]:>26}{cells[2]:>16}{cells[3]:>16}"
              f"{statistics.median(ratios):>10.2f} ({min(ratios):.2f}–{max(ratios):.2f})")


if __name__ == "__main__":
    main()
