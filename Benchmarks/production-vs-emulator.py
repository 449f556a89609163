#!/usr/bin/env python3
"""What production credentials cost a deployed function, side by side with the emulator path.

The sample's `pushConfig` (functions/, AppFunctions) runs twice, as Cloud Run runs it, against
the same local FCM stand-in (conformance/google_standin.py):
- production: a service account key in GOOGLE_APPLICATION_CREDENTIALS; tokens from the stand-in's
  token endpoint, which checks each assertion with google-auth;
- emulator path: FUNCTIONS_EMULATOR_URL, the fixed `owner` token.
Events are POSTed one at a time, in rounds that alternate which goes first, after a warm-up that fetches the first
token. Prints the median latency per event of each, their ratio, and the sends per token request.

Needs the conformance venv (google-auth, cryptography), e.g.
    .build/conformance-venv/bin/python Benchmarks/production-vs-emulator.py --bin-dir .build/release
and the functions/ product built into that folder
    (swift build -c release --package-path functions --scratch-path .build).
"""

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "conformance"))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin-dir", default=str(ROOT / ".build" / "release"))
    parser.add_argument("--events", type=int, default=1000, help="events per configuration")
    parser.add_argument("--rounds", type=int, default=5)
    arguments = parser.parse_args()
    os.environ["FUNCTIONS_BIN"] = str(Path(arguments.bin_dir) / "functions")
    from google_standin import Function, Google, remote_config_event  # after FUNCTIONS_BIN is set

    google = Google(accept_owner=True)
    folder = tempfile.TemporaryDirectory()
    key = google.key_file(folder.name, project_id="bench-project")
    functions = {
        "production": Function("pushConfig", GOOGLE_APPLICATION_CREDENTIALS=key,
                               FIREBASE_MESSAGING_URL_BASE=google.base, GCE_METADATA_HOST="127.0.0.1:9"),
        "emulator path": Function("pushConfig", FUNCTIONS_EMULATOR_URL=google.base, GCLOUD_PROJECT="bench-project"),
    }
    latencies = {name: [] for name in functions}
    try:
        for name, function in functions.items():
            for index in range(20):
                assert function.post(*remote_config_event(f"warm-{name}-{index}"))[0] == 200
        tokens_after_warm_up = google.token_requests
        per_round = arguments.events // arguments.rounds
        for round_number in range(arguments.rounds):
            # Each configuration goes first in every other round.
            order = list(functions.items())
            for name, function in (order if round_number % 2 == 0 else reversed(order)):
                for index in range(per_round):
                    event = remote_config_event(f"{name}-{round_number}-{index}")
                    started = time.perf_counter()
                    status, _ = function.post(*event)
                    latencies[name].append(time.perf_counter() - started)
                    assert status == 200, status
        production_tokens = google.token_requests
    finally:
        for function in functions.values():
            function.stop()
        google.close()
        folder.cleanup()
    assert google.refusals == [], google.refusals
    sends = len(latencies["production"]) + 20
    print(f"events per configuration: {len(latencies['production'])} (+20 warm-up), {arguments.rounds} alternating rounds")
    for name, values in latencies.items():
        values = sorted(values)
        print(f"{name:>14}: p50 {statistics.median(values) * 1e6:8.0f} µs   "
              f"p90 {values[int(len(values) * 0.9)] * 1e6:8.0f} µs   mean {statistics.mean(values) * 1e6:8.0f} µs")
    ratio = statistics.median(latencies["production"]) / statistics.median(latencies["emulator path"])
    print(f"production ÷ emulator path, median latency per event: {ratio:.3f}")
    print(f"token requests: {production_tokens} ({tokens_after_warm_up} during the warm-up); "
          f"sends per token request: {sends / max(production_tokens, 1):.0f}")


if __name__ == "__main__":
    main()
