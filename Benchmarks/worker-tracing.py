#!/usr/bin/env python3
"""What tracing costs a worker, side by side in one run.

Builds the noop-worker in release and runs it three ways at once, each on its own port:

- off: no OpenTelemetry variable, as a binary deployed without tracing runs (no tracer is
  bootstrapped; no span is made);
- sampler 0: OTEL_TRACES_EXPORTER=otlp with OTEL_TRACES_SAMPLER=traceidratio and
  OTEL_TRACES_SAMPLER_ARG=0 (spans are made and dropped; nothing is exported);
- every span exported: OTEL_TRACES_SAMPLER=always_on, to an OTLP/HTTP receiver in this script
  (JSON encoding, as the emulator's workers export), which counts the spans it gets.

wrk (2 threads, CONNECTIONS connections, DURATION seconds) POSTs the same binary-mode Remote Config
CloudEvent with a sampled `traceparent` (as the emulator and Eventarc send it) to each in turn,
RUNS times; the worker's CPU time per event is utime + stime from /proc/PID/stat over the run ÷
requests. Prints each configuration's medians and its ratio to "off" (the median of the ratios of
each round). wrk, the receiver and the workers share the machine's cores: compare the ratios.

    python3 Benchmarks/worker-tracing.py [--duration 10] [--runs 3] [--connections 16] [--no-build]
        [--baseline PATH]

With --baseline, that binary (the noop-worker of an earlier commit, without tracing support) runs
as a fourth configuration, so that "off" can be compared with a worker that has no tracing code.
"""

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

HERE = Path(__file__).resolve().parent
spec = importlib.util.spec_from_file_location("worker_vs_bare", HERE / "worker-vs-bare.py")
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)

TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


class Receiver(BaseHTTPRequestHandler):
    spans = 0
    lock = threading.Lock()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        count = sum(len(scope.get("spans", [])) for resource in json.loads(body)["resourceSpans"]
                    for scope in resource.get("scopeSpans", []))
        with Receiver.lock:
            Receiver.spans += count
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *arguments):
        pass


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=int, default=10, help="seconds per wrk run")
    parser.add_argument("--runs", type=int, default=3, help="rounds; the median is reported")
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--no-build", action="store_true", help="use the release binary already built")
    parser.add_argument("--baseline", help="also run this binary (an earlier noop-worker) as a configuration")
    arguments = parser.parse_args()
    if subprocess.run(["which", "wrk"], capture_output=True).returncode != 0:
        raise SystemExit("worker-tracing: needs wrk (apt-get install wrk)")
    binary = (bench.bin_path() if arguments.no_build else bench.build(["noop-worker"])) / "noop-worker"
    receiver = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    endpoint = f"http://127.0.0.1:{receiver.server_address[1]}/v1/traces"
    exporting = {"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": endpoint,
                 "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json", "OTEL_METRICS_EXPORTER": "none",
                 "OTEL_LOGS_EXPORTER": "none"}
    configurations = {
        "off": (binary, {}),
        "sampler 0": (binary, {**exporting, "OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0"}),
        "every span exported": (binary, {**exporting, "OTEL_TRACES_SAMPLER": "always_on"}),
    }
    if arguments.baseline:
        configurations["baseline (no tracing code)"] = (Path(arguments.baseline), {})
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as script:
        script.write('wrk.method = "POST"\n')
        script.write(f"wrk.body = '{bench.DATA}'\n")
        for name, value in {**bench.HEADERS, "traceparent": TRACEPARENT}.items():
            script.write(f'wrk.headers["{name}"] = "{value}"\n')
    running = {}
    try:
        for name, (path, environment) in configurations.items():
            process, port, _ = bench.launch(path, environment)
            running[name] = (process, port)
        runs = {name: [] for name in configurations}
        exported = []
        for _ in range(arguments.runs):
            for name, (process, port) in running.items():
                before = Receiver.spans
                runs[name].append(bench.load(port, process.pid, arguments.connections, arguments.duration, script.name))
                if name == "every span exported":
                    exported.append((runs[name][-1]["rps"] * arguments.duration, Receiver.spans - before))
    finally:
        for process, _ in running.values():
            bench.stop(process)
        os.unlink(script.name)
        receiver.shutdown()

    print(f"noop-worker (release), {arguments.runs} rounds of {arguments.duration} s per configuration, wrk -t2 "
          f"-c{arguments.connections}, the configurations in turn; medians, ratios are medians of each round's ratio")
    print(f"{'configuration':<28} {'req/s':>10} {'p50 ms':>7} {'p99 ms':>7} {'CPU µs/event':>13} {'÷ off':>7}")
    for name in configurations:
        cpu = statistics.median(run["cpu_us"] for run in runs[name])
        ratio = statistics.median(run["cpu_us"] / off["cpu_us"] for run, off in zip(runs[name], runs["off"]))
        print(f"{name:<28} {statistics.median(r['rps'] for r in runs[name]):>10,.0f} "
              f"{statistics.median(r['p50'] for r in runs[name]):>7.2f} {statistics.median(r['p99'] for r in runs[name]):>7.2f} "
              f"{cpu:>13.1f} {ratio:>7.2f}")
    print("spans received while 'every span exported' ran (about, requests ≈ req/s × seconds): " +
          ", ".join(f"{spans:,} of ~{requests:,.0f}" for requests, spans in exported), file=sys.stderr)


if __name__ == "__main__":
    main()
