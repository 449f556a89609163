#!/usr/bin/env python3
"""Our worker against its ceiling, side by side in one run.

Builds in release the noop-worker (its `config` function: a typed RemoteConfig.onUpdate that
reads the version) and bare-route (a bare Hummingbird 2 route decoding the same event's JSON),
then measures both, alternating between them so that each pair of runs sees the machine in the
same state (these machines are shared and drift by ±10 % within minutes):

- launch → first 2xx: from exec to the first answered POST (polled every millisecond), over
  LAUNCHES launches, median;
- idle RSS once it has answered (the mappings' resident pages, which add up to VmRSS), and where
  it lies: the binary's own pages, the shared libraries', anonymous memory (/proc/PID/smaps);
- under wrk (2 threads, 16 and 64 connections, DURATION seconds, RUNS runs, medians) POSTing the
  same binary-mode Remote Config CloudEvent: requests/s, p50 and p99 latency, and the server's
  CPU time per request (utime + stime from /proc/PID/stat over the run ÷ requests).

Prints both and the ratios (for load, the median of the ratios of each pair of runs), with the
goals of the performance issue next to them. wrk and the server share the machine's cores;
compare the ratios, not the absolute figures.

    python3 Benchmarks/worker-vs-bare.py [--duration 10] [--runs 3] [--launches 20] [--no-build]
        [--baseline PATH]

With --baseline, that binary (an earlier build of the noop-worker, say) takes the bare route's
place: the ratios are then this worker's against it, side by side in one run.
"""

import argparse
import http.client
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TICKS = os.sysconf("SC_CLK_TCK")
DATA = ('{"versionNumber":"42","updateTime":"2026-11-25T10:00:00.000Z","updateUser":{"email":"dev@example.com"},'
        '"description":"benchmark publish","updateOrigin":"CONSOLE","updateType":"INCREMENTAL_UPDATE"}')
HEADERS = {
    "Content-Type": "application/json",
    "ce-specversion": "1.0",
    "ce-type": "google.firebase.remoteconfig.remoteConfig.v1.updated",
    "ce-source": "//firebaseremoteconfig.googleapis.com/projects/demo",
    "ce-id": "benchmark-event-1",
    "ce-time": "2026-11-25T10:00:00.000Z",
}


BENCHMARKS = ["swift", "build", "-c", "release", "--package-path", str(ROOT / "Benchmarks")]


def build(products):
    for product in products:
        subprocess.run(BENCHMARKS + ["--product", product], check=True, stdout=sys.stderr)
    return bin_path()


def bin_path():
    return Path(subprocess.run(BENCHMARKS + ["--show-bin-path"], check=True, capture_output=True,
                               text=True).stdout.strip())


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def post(port):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("POST", "/config", body=DATA, headers=HEADERS)
        return connection.getresponse().status
    finally:
        connection.close()


def launch(binary, extra={}):
    """Starts the server on a free port; returns (process, port, seconds to the first 2xx)."""
    port = free_port()
    environment = {**os.environ, "PORT": str(port), "MALLOC_ARENA_MAX": os.environ.get("MALLOC_ARENA_MAX", ""),
                   **extra}
    environment = {key: value for key, value in environment.items() if value != ""}
    begin = time.perf_counter()
    process = subprocess.Popen([str(binary)], env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               stdin=subprocess.PIPE)
    while True:
        try:
            status = post(port)
            if 200 <= status < 300:
                return process, port, time.perf_counter() - begin
            raise SystemExit(f"{binary.name} answered {status}")
        except (ConnectionRefusedError, ConnectionResetError):
            if process.poll() is not None:
                raise SystemExit(f"{binary.name} exited with {process.returncode}")
            time.sleep(0.001)


def stop(process):
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def cpu_seconds(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime, stime


def rss_by_kind(pid, binary):
    """Idle memory in MB by where it lies (/proc/PID/smaps): the binary's own pages (its code, its
    relocation table, the data the loader patched), the shared libraries', and anonymous memory
    (heap, stacks, malloc arenas)."""
    kinds = {"binary": 0, "libraries": 0, "anonymous": 0}
    kind = "anonymous"
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        fields = line.split()
        if re.match(r"^[0-9a-f]+-[0-9a-f]+ ", line):
            path = fields[5] if len(fields) > 5 else ""
            kind = ("binary" if path == str(binary) or path.endswith("/" + binary.name)
                    else "libraries" if path.startswith("/") else "anonymous")
        elif fields and fields[0] == "Rss:":
            kinds[kind] += int(fields[1])
    return {name: kb / 1024 for name, kb in kinds.items()}


def milliseconds(text):
    number, unit = re.match(r"([\d.]+)(us|ms|s)", text).groups()
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def load(port, pid, connections, duration, script):
    before = cpu_seconds(pid)
    output = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{duration}s", "--latency", "-s", script,
                             f"http://127.0.0.1:{port}/config"], check=True, capture_output=True, text=True).stdout
    cpu = cpu_seconds(pid) - before
    requests = int(re.search(r"(\d+) requests in", output).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    if errors:
        raise SystemExit(f"{errors.group(1)} answers were not 2xx:\n{output}")
    return {
        "rps": float(re.search(r"Requests/sec:\s+([\d.]+)", output).group(1)),
        "p50": milliseconds(re.search(r"\s50%\s+(\S+)", output).group(1)),
        "p99": milliseconds(re.search(r"\s99%\s+(\S+)", output).group(1)),
        "cpu_us": cpu / requests * 1e6,
    }


def measure(servers, arguments, script):
    """Measures the servers in alternation, so each pair of runs shares the machine's state of
    the moment: launches alternate, then both run side by side (the idle one uses no CPU) and
    each wrk run of one is followed by the same run of the other."""
    launches = {name: [] for name in servers}
    for _ in range(arguments.launches):
        for name, binary in servers.items():
            process, _, seconds = launch(binary)
            launches[name].append(seconds * 1000)
            stop(process)
    running = {name: launch(binary)[:2] for name, binary in servers.items()}
    time.sleep(1)
    figures = {name: {"launch_ms": statistics.median(launches[name]),
                      "rss_by_kind": rss_by_kind(process.pid, servers[name])}
               for name, (process, _) in running.items()}
    for server in figures.values():
        # The mappings' resident pages add up to VmRSS.
        server["rss_mb"] = sum(server["rss_by_kind"].values())
    pairs = {}
    try:
        for connections in (16, 64):
            runs = {name: [] for name in servers}
            for _ in range(arguments.runs):
                for name, (process, port) in running.items():
                    runs[name].append(load(port, process.pid, connections, arguments.duration, script))
            for name in servers:
                for key in ("rps", "p50", "p99", "cpu_us"):
                    figures[name][f"{key}@{connections}"] = statistics.median(run[key] for run in runs[name])
                print(f"  {name}, {connections} connections: " + ", ".join(
                    f"{run['rps']:,.0f} req/s p99 {run['p99']:.2f} ms {run['cpu_us']:.1f} µs" for run in runs[name]),
                    file=sys.stderr)
            worker, bare = runs["worker"], runs["bare route"]
            pairs[f"rps@{connections}"] = statistics.median(w["rps"] / b["rps"] for w, b in zip(worker, bare))
            pairs[f"cpu_us@{connections}"] = statistics.median(w["cpu_us"] / b["cpu_us"] for w, b in zip(worker, bare))
    finally:
        for process, _ in running.values():
            stop(process)
    return figures, pairs


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--runs", type=int, default=3, help="wrk runs per load, the median is reported")
    parser.add_argument("--launches", type=int, default=20, help="launches timed, the median is reported")
    parser.add_argument("--no-build", action="store_true", help="use the release binaries already built")
    parser.add_argument("--baseline", help="compare against this binary instead of the bare route")
    arguments = parser.parse_args()
    if subprocess.run(["which", "wrk"], capture_output=True).returncode != 0:
        raise SystemExit("worker-vs-bare: needs wrk (apt-get install wrk)")
    binaries = bin_path() if arguments.no_build else build(["noop-worker", "bare-route"])
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write('wrk.method = "POST"\n')
        script.write(f"wrk.body = '{DATA}'\n")
        for name, value in HEADERS.items():
            script.write(f'wrk.headers["{name}"] = "{value}"\n')
    try:
        servers = {"bare route": Path(arguments.baseline) if arguments.baseline else binaries / "bare-route",
                   "worker": binaries / "noop-worker"}
        figures, pairs = measure(servers, arguments, script.name)
        bare, worker = figures["bare route"], figures["worker"]
    finally:
        os.unlink(script.name)

    print(f"{arguments.runs} runs of {arguments.duration} s per load, the two servers alternating (medians; "
          f"ratios are medians of the ratios of each pair of runs), wrk -t2; "
          f"launch → first 2xx over {arguments.launches} launches, alternating (median)")
    print(f"{'server':<48} {'req/s @16':>10} {'p50 ms':>7} {'p99 ms':>7} {'req/s @64':>10} {'p99 ms':>7} "
          f"{'CPU µs/event':>13} {'launch ms':>10} {'idle RSS MB':>12}")
    baseline = f"baseline {arguments.baseline}" if arguments.baseline else "bare Hummingbird 2 route (the ceiling)"
    for name, server in ((baseline[:48], bare), ("our worker, typed RemoteConfig.onUpdate", worker)):
        print(f"{name:<48} {server['rps@16']:>10,.0f} {server['p50@16']:>7.2f} {server['p99@16']:>7.2f} "
              f"{server['rps@64']:>10,.0f} {server['p99@64']:>7.2f} {server['cpu_us@16']:>13.1f} "
              f"{server['launch_ms']:>10.1f} {server['rss_mb']:>12.1f}")
    print("idle RSS by where it lies, MB (bare route, worker, difference): " + "; ".join(
        f"{kind} {bare['rss_by_kind'][kind]:.1f}, {worker['rss_by_kind'][kind]:.1f}, "
        f"{worker['rss_by_kind'][kind] - bare['rss_by_kind'][kind]:+.1f}"
        for kind in ("binary", "libraries", "anonymous")))
    ratios = [
        ("requests/s @16, worker ÷ bare", pairs["rps@16"], "≥ 0.85", lambda r: r >= 0.85),
        ("requests/s @64, worker ÷ bare", pairs["rps@64"], "≥ 0.85", lambda r: r >= 0.85),
        ("CPU per event @16, worker ÷ bare", pairs["cpu_us@16"], "≤ 1.3", lambda r: r <= 1.3),
        ("CPU per event @64, worker ÷ bare", pairs["cpu_us@64"], "≤ 1.3", lambda r: r <= 1.3),
        ("launch → first 2xx, worker ÷ bare", worker["launch_ms"] / bare["launch_ms"], "≤ 1.2", lambda r: r <= 1.2),
        ("idle RSS, worker ÷ bare", worker["rss_mb"] / bare["rss_mb"], "≤ 1.1", lambda r: r <= 1.1),
    ]
    for label, ratio, goal, met in ratios:
        print(f"  {label:<36} {ratio:6.2f}  (goal {goal}: {'met' if met(ratio) else 'NOT met'})")


if __name__ == "__main__":
    main()
