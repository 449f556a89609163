#!/usr/bin/env bash
# Times what the README says about ./deploy.sh: the release build of the CLI and the sample
# functions/ (cold when SCRATCH is a new folder), starting the emulator, the first deploy and a
# redeploy of the unchanged package; then the deployed worker's memory once idle.
#   Benchmarks/deploy-timing.sh [SCRATCH, default .build]   e.g. .build-cold for a cold build
set -euo pipefail
cd "$(dirname "$0")/.."
scratch="${1:-.build}"
work="$(mktemp -d)"
trap 'kill "${emulator:-}" 2>/dev/null || true; wait "${emulator:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

seconds() { awk -v b="$1" -v e="$(date +%s%N)" 'BEGIN { printf "%.1f s", (e - b) / 1e9 }'; }

begin=$(date +%s%N)
build=(swift build -c release --package-path "$PWD/functions" --scratch-path "$PWD/$scratch")
"${build[@]}" --product functions >/dev/null 2>&1
"${build[@]}" >/dev/null 2>&1
echo "== release build of the CLI and functions/ into $scratch: $(seconds "$begin")"
cli="$("${build[@]}" --show-bin-path)/functions"

begin=$(date +%s%N)
"$cli" emulators:start --port 0 --in-memory >"$work/out" 2>/dev/null &
emulator=$!
while ! grep -q '^ready: ' "$work/out" 2>/dev/null; do sleep 0.01; done
base=$(sed -n 's/^ready: //p' "$work/out")
echo "== emulator start to its ready line: $(seconds "$begin")"

for attempt in first redeploy; do
    begin=$(date +%s%N)
    "$cli" deploy --source functions --scratch-path "$PWD/$scratch" --emulator "$base" >/dev/null 2>&1
    echo "== $attempt deploy (build check, manifest, worker start): $(seconds "$begin")"
done
worker=$(pgrep -P "$emulator" | head -1)
echo "== the deployed worker once idle: $(grep VmRSS "/proc/$worker/status" | tr -s ' \t' ' ')"
