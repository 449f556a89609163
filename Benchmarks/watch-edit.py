#!/usr/bin/env python3
"""Save → new code answering, with watch mode, in debug and in release side by side.

For each configuration: makes a package with `functions init` (its `hello` function), starts
`functions emulators:start --watch --configuration C` on it (sharing the root package's build
folder, as deploy.sh does), waits for the first deploy, then saves N one-line edits of hello's
answer, one at a time: each time it writes the file, then calls hello every 20 ms until the
answer is the new one. It reports, per configuration, the first deploy's time and the edits'
p50, minimum and maximum, then the ratio of the p50s (release / debug). The watcher's own
split (build, deploy) is read from its log lines.

    python3 Benchmarks/watch-edit.py [--edits 10] [--configurations debug,release]

The `functions` CLI used is the debug build (.build/debug/functions, built first); the edits'
builds are those of the package, in the configuration measured.
"""

import argparse
import re
import statistics
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = "demo-project"


def answer(url):
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.read().decode()
    except Exception:
        return ""


def measure(cli, configuration, edits, folder):
    package = folder / f"edits-{configuration}"
    subprocess.run([cli, "init", str(package), "--package-path", str(ROOT)], check=True, capture_output=True)
    source = next((package / "Sources").glob("*/*.swift"))
    original = source.read_text()
    marker = 'response.send("\\(try context.value(greeting)), '
    assert marker in original, "the scaffold's hello changed: update this benchmark"
    log = folder / f"emulator-{configuration}.log"
    started = time.monotonic()
    emulator = subprocess.Popen([cli, "emulators:start", "--in-memory", "--port", "0", "--project", PROJECT, "--watch",
                                 "--source", str(package), "--configuration", configuration,
                                 "--scratch-path", str(ROOT / ".build")],
                                stdout=subprocess.PIPE, stderr=open(log, "w"), text=True)
    try:
        base = emulator.stdout.readline()[len("ready: "):].strip()
        url = f"{base}/{PROJECT}/us-central1/hello"
        while "watching" not in log.read_text():
            assert emulator.poll() is None, log.read_text()
            time.sleep(0.05)
        first = time.monotonic() - started
        assert "built in" in log.read_text(), "the first build was not deployed:\n" + log.read_text()
        times = []
        for number in range(1, edits + 1):
            expected = f"edit {number}"
            source.write_text(original.replace(marker, f'response.send("{expected} " + "\\(try context.value(greeting)), '))
            saved = time.monotonic()
            while not answer(url).startswith(expected):
                assert emulator.poll() is None, log.read_text()
                assert time.monotonic() - saved < 600, "the edit was not deployed:\n" + log.read_text()[-3000:]
                time.sleep(0.02)
            times.append(time.monotonic() - saved)
            print(f"  {configuration} edit {number}: {times[-1]:.2f} s", flush=True)
        builds = [float(value) for value in re.findall(r"built in ([\d.]+) s", log.read_text())][1:]
        deploys = [float(value) for value in re.findall(r"deployed in ([\d.]+) s", log.read_text())][1:]
        return first, times, builds, deploys
    finally:
        emulator.terminate()
        emulator.wait(timeout=120)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--edits", type=int, default=10)
    parser.add_argument("--configurations", default="debug,release")
    arguments = parser.parse_args()
    subprocess.run(["swift", "build", "--product", "functions"], cwd=ROOT, check=True, capture_output=True)
    cli = str(ROOT / ".build" / "debug" / "functions")
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        for configuration in arguments.configurations.split(","):
            results[configuration] = measure(cli, configuration, arguments.edits, Path(folder))
    print()
    print(f"{'configuration':<14}{'first deploy':>14}{'edit p50':>10}{'min':>8}{'max':>8}{'build p50':>11}{'deploy p50':>12}")
    for configuration, (first, times, builds, deploys) in results.items():
        print(f"{configuration:<14}{first:>12.1f} s{statistics.median(times):>8.2f} s{min(times):>6.2f} s"
              f"{max(times):>6.2f} s{statistics.median(builds):>9.2f} s{statistics.median(deploys):>10.2f} s")
    if "debug" in results and "release" in results:
        ratio = statistics.median(results["release"][1]) / statistics.median(results["debug"][1])
        print(f"\nsave → new code, release / debug (p50): {ratio:.2f}")


if __name__ == "__main__":
    main()
