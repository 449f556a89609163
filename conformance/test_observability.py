"""One trace from a client's write to the function's database calls, as an OpenTelemetry
collector receives it; the log lines that name it; and the emulator's Prometheus metrics.

A receiver of its own stands for the collector: it accepts OTLP/HTTP exports in the JSON
encoding at /v1/traces, as the OTLP specification defines them (hexadecimal ids, 64-bit integers
as strings), and refuses anything else. The emulator is started with `--otlp` pointing at it; a
package made with `functions init` has a function that fails its first attempt on demand, then
counts in a database transaction. firebase-admin writes once, and the exported spans must form one
trace: the write, two delivery attempts (the first failed), an invocation under each, and the
second's transaction with its database calls, linked parent to child. The function's log lines
carry the trace and span ids of their invocation; `/metrics` parses under the Prometheus text
format's rules.
"""

import json
import re
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from prometheus_client.parser import text_string_to_metric_families

from conftest import ROOT
from test_inner_loop import BINARY, SCRATCH, run_cli, start_emulator, stop

SOURCE = '''import FunctionsWorker

struct FirstAttemptFailure: Error {}

@main
struct Tally: FunctionsApp {
    static func register(_ functions: inout FunctionRegistry) {
        functions["tally"] = Database.ref("/votes/{id}")
            .options(.uses(.database), .retry(true), .backoff(BackoffPolicy(initial: .milliseconds(200), jitter: 0)))
            .onCreate { snapshot, context in
                context.logger.info("counting vote \\(context.params["id"] ?? "")", metadata: ["attempt": "\\(context.attempt)"])
                if context.attempt == 1, snapshot.child("failFirst").val().boolValue == true {
                    throw FirstAttemptFailure()
                }
                try await context.database.ref("tally").transaction { current in .number((current.numberValue ?? 0) + 1) }
            }
        functions["hello"] = Https.onRequest { _, response, context in
            context.logger.info("saying hello")
            response.send("hello")
        }
    }
}
'''

SERVER, CLIENT, PRODUCER, CONSUMER = 2, 3, 4, 5
STATUS_ERROR = 2
HEX32 = re.compile(r"^[0-9a-f]{32}$")
HEX16 = re.compile(r"^[0-9a-f]{16}$")


class Receiver(BaseHTTPRequestHandler):
    """An OTLP/HTTP trace receiver (JSON encoding), keeping every span with its service name."""

    spans = []
    problems = []
    lock = threading.Lock()

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if self.path != "/v1/traces" or self.headers.get("Content-Type") != "application/json":
            Receiver.problems.append(f"{self.path} {self.headers.get('Content-Type')}")
            self.send_response(415)
            self.end_headers()
            return
        export = json.loads(body)
        with Receiver.lock:
            for resource in export["resourceSpans"]:
                service = {a["key"]: a["value"] for a in resource["resource"]["attributes"]}["service.name"]["stringValue"]
                for scope in resource["scopeSpans"]:
                    for span in scope["spans"]:
                        Receiver.spans.append(dict(span, service=service))
        answer = b"{}"
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *arguments):
        pass


@pytest.fixture(scope="module")
def receiver():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def traced(tmp_path_factory, receiver):
    folder = tmp_path_factory.mktemp("tally") / "tally"
    subprocess.run([BINARY, "init", str(folder), "--package-path", str(ROOT)], check=True, capture_output=True)
    (folder / "Sources" / "Tally" / "Tally.swift").write_text(SOURCE)
    (folder / "Tests" / "TallyTests" / "TallyTests.swift").write_text("// no tests of its own\n")
    for name in (".env", ".env.local"):
        (folder / name).unlink(missing_ok=True)
    log = tmp_path_factory.mktemp("logs") / "emulator.log"
    process, emulator = start_emulator(log, "--otlp", receiver)
    finished = run_cli("deploy", "--source", str(folder), "--configuration", "debug", "--scratch-path", SCRATCH,
                       "--emulator", emulator.base, "--project", "loop-demo")
    assert finished.returncode == 0, finished.stderr
    yield emulator
    stop(process)


def spans_until(condition, within=60):
    deadline = time.monotonic() + within
    while True:
        with Receiver.lock:
            spans = list(Receiver.spans)
        if condition(spans) or time.monotonic() > deadline:
            return spans
        time.sleep(0.05)


def attribute(span, key):
    for item in span.get("attributes", []):
        if item["key"] == key:
            value = item["value"]
            return value.get("stringValue", value.get("intValue", value.get("boolValue", value.get("doubleValue"))))
    return None


def test_one_write_makes_one_trace_through_retry_invocations_and_transaction(traced, monkeypatch):
    import firebase_admin
    from firebase_admin import db

    monkeypatch.setenv("FIREBASE_DATABASE_EMULATOR_HOST", traced.host)
    app = firebase_admin.initialize_app(
        options={"databaseURL": "https://loop-demo-default-rtdb.firebaseio.com", "projectId": "loop-demo"},
        name="observability",
    )
    try:
        db.reference("votes/v1", app=app).set({"failFirst": True})
    finally:
        firebase_admin.delete_app(app)
    status, events, _ = traced.request("GET", "/emulator/v1/projects/loop-demo/events?wait=true")
    assert status == 200

    def complete(spans):
        names = [s["name"] for s in spans]
        return names.count("tally") >= 2 and "database transaction" in names
    spans = spans_until(complete)
    assert not Receiver.problems, Receiver.problems
    write = [s for s in spans if s["name"] == "PUT /votes/v1.json"]
    assert len(write) == 1, [s["name"] for s in spans]
    write = write[0]
    trace = write["traceId"]
    assert HEX32.match(trace) and HEX16.match(write["spanId"])
    assert write["kind"] == SERVER and write["service"] == "emulator" and not write.get("parentSpanId")
    ours = [s for s in spans if s["traceId"] == trace]
    by_id = {s["spanId"]: s for s in ours}

    deliveries = sorted((s for s in ours if s["name"] == "deliver tally"), key=lambda s: attribute(s, "functions.attempt"))
    assert [attribute(s, "functions.attempt") for s in deliveries] == ["1", "2"]
    for delivery in deliveries:
        assert delivery["kind"] == PRODUCER and delivery["parentSpanId"] == write["spanId"]
        assert attribute(delivery, "cloudevents.event_id") and attribute(delivery, "functions.instance")
    assert deliveries[0]["status"]["code"] == STATUS_ERROR
    assert attribute(deliveries[0], "functions.outcome") == "failed"
    assert attribute(deliveries[1], "functions.outcome") == "ok"
    assert int(deliveries[0]["endTimeUnixNano"]) <= int(deliveries[1]["startTimeUnixNano"])

    invocations = [s for s in ours if s["name"] == "tally"]
    assert len(invocations) == 2
    for invocation in invocations:
        assert invocation["kind"] == CONSUMER and invocation["service"] == "tally"
    first, second = sorted(invocations, key=lambda s: attribute(s, "functions.attempt"))
    assert first["parentSpanId"] == deliveries[0]["spanId"] and first["status"]["code"] == STATUS_ERROR
    assert second["parentSpanId"] == deliveries[1]["spanId"] and second.get("status", {}).get("code", 0) != STATUS_ERROR

    transaction = [s for s in ours if s["name"] == "database transaction"]
    assert len(transaction) == 1 and transaction[0]["parentSpanId"] == second["spanId"]
    assert transaction[0]["kind"] == CLIENT and attribute(transaction[0], "db.collection.name") == "tally"
    # The transaction's read and conditional write: the worker's client spans, and under each the
    # emulator's server span for the request it received.
    calls = [s for s in ours if s.get("parentSpanId") == transaction[0]["spanId"]]
    assert len(calls) >= 2 and all(s["kind"] == CLIENT and s["service"] == "tally" for s in calls)
    served = [s for s in ours if s["service"] == "emulator" and s.get("parentSpanId") in {c["spanId"] for c in calls}]
    assert sorted(s["name"] for s in served) == ["GET /tally.json", "PUT /tally.json"]
    # Every span's parent is in the trace, except the write's.
    assert all(s.get("parentSpanId") in by_id for s in ours if s is not write)

    # The invocations' log lines name their trace and span.
    def lines():
        _, body, _ = traced.request("GET", "/emulator/v1/projects/loop-demo/logs?function=tally")
        return [e for e in body["entries"] if e["message"].startswith("counting vote v1")]
    deadline = time.monotonic() + 30
    while len(lines()) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    logged = sorted(lines(), key=lambda e: e["labels"]["attempt"])
    assert [(e["traceId"], e["spanId"]) for e in logged] == [(trace, first["spanId"]), (trace, second["spanId"])]

    # The console's view of the trace: the same spans, with those lines.
    status, view, _ = traced.request("GET", f"/emulator/v1/projects/loop-demo/traces/{trace}")
    assert status == 200
    assert {s["spanId"] for s in view["spans"]} == set(by_id)
    assert [e["spanId"] for e in view["logs"] if e["message"].startswith("counting vote")] == [first["spanId"], second["spanId"]]
    status, listing, _ = traced.request("GET", "/emulator/v1/projects/loop-demo/traces?limit=50")
    assert any(t["traceId"] == trace and t["name"] == "PUT /votes/v1.json" and t["errors"] >= 2 for t in listing["traces"])


def test_a_request_function_continues_the_callers_trace(traced):
    """A client that traces sends its traceparent; the emulator's span of the request and the
    worker's span of the function continue that trace, and the function's log line names it."""
    import urllib.request

    trace, caller = "ab" * 16, "cd" * 8
    request = urllib.request.Request(f"{traced.base}/loop-demo/us-central1/hello", data=b"{}", method="POST",
                                     headers={"traceparent": f"00-{trace}-{caller}-01", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.read() == b"hello"
    spans = spans_until(lambda spans: any(s["traceId"] == trace and s["name"] == "hello" for s in spans))
    ours = [s for s in spans if s["traceId"] == trace]
    served = [s for s in ours if s["service"] == "emulator"]
    assert [(s["name"], s["kind"], s["parentSpanId"]) for s in served] == \
        [("POST /loop-demo/us-central1/hello", SERVER, caller)]
    hello = [s for s in ours if s["name"] == "hello"]
    assert len(hello) == 1 and hello[0]["kind"] == SERVER and hello[0]["parentSpanId"] == served[0]["spanId"]
    assert attribute(hello[0], "http.response.status_code") == "200"
    deadline = time.monotonic() + 30
    while True:
        _, body, _ = traced.request("GET", "/emulator/v1/projects/loop-demo/logs?function=hello")
        lines = [e for e in body["entries"] if e["message"] == "saying hello"]
        if lines or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert [(e["traceId"], e["spanId"]) for e in lines] == [(trace, hello[0]["spanId"])]


def test_metrics_parse_as_prometheus_text_and_count_the_attempts(traced):
    import urllib.request

    with urllib.request.urlopen(traced.base + "/metrics", timeout=30) as response:
        assert response.headers["Content-Type"].startswith("text/plain; version=0.0.4")
        text = response.read().decode()
    families = {family.name: family for family in text_string_to_metric_families(text)}

    def value(name, **labels):
        for family in families.values():
            for sample in family.samples:
                if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items()):
                    return sample.value
        return None
    assert value("functions_delivery_attempts_total", function="tally", outcome="failed") >= 1
    assert value("functions_delivery_attempts_total", function="tally", outcome="ok") >= 1
    assert value("functions_delivery_retries_total", function="tally") >= 1
    assert value("functions_delivery_attempt_duration_seconds_count", function="tally") >= 2
    assert value("functions_deliveries_in_flight", function="tally") == 0
    assert value("functions_instances", function="tally") >= 1
    assert value("functions_dead_letters", function="tally") == 0
    assert value("functions_outbox_pending_events") == 0


def test_a_bad_otlp_endpoint_is_refused_in_one_line():
    finished = run_cli("emulators:start", "--in-memory", "--port", "0", "--otlp", "localhost:4318")
    assert finished.returncode != 0
    assert "--otlp must be an http:// or https:// URL" in finished.stderr
