#!/usr/bin/env bash
# Loads the emulator with database writes that trigger the deployed functions/ sample over HTTP
# (onScoreWrite reads and writes /leaderboard through the worker's HTTP Admin client), then
# checks what a user relies on, exiting non-zero when it does not hold: every event delivered,
# the leaderboard exact, and after a kill -9 of the emulator mid-delivery, a restart on the same
# data (which starts the deployed functions again) delivers the rest. Needs wrk and python3.
#   [CONNECTIONS=16] Benchmarks/trigger-load.sh [seconds of load, default 15] [debug|release, default release] [emulators:start options]
# (--delivery-batch 1, say, posts each event to the worker alone, as Eventarc does). CONNECTIONS is
# how many connections wrk writes on.
set -euo pipefail
# Decimal points in `time`'s figures, whatever the user's locale.
export LC_ALL=C
cd "$(dirname "$0")/.."
seconds="${1:-15}"
configuration="${2:-release}"
shift $(( $# < 2 ? $# : 2 ))
emulator_options=("$@")
connections="${CONNECTIONS:-16}"
command -v wrk >/dev/null || { echo "trigger-load: needs wrk (apt-get install wrk)" >&2; exit 1; }

build=(swift build -c "$configuration" --package-path "$PWD/functions" --scratch-path "$PWD/.build")
"${build[@]}" --product functions >&2
cli="$("${build[@]}" --show-bin-path)/functions"
work="$(mktemp -d)"
trap 'pkill -P $$ 2>/dev/null || true; kill "${emulator:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

start() {
    # Every event of the run stays in the event log, which the outcome is read from.
    "$cli" emulators:start --port 0 --data-dir "$work/data" --event-log-size 100000000 ${emulator_options[@]+"${emulator_options[@]}"} >"$work/out" 2>"$work/err" &
    emulator=$!
    while ! grep -q '^ready: ' "$work/out" 2>/dev/null; do
        kill -0 "$emulator" 2>/dev/null || { cat "$work/err" >&2; exit 1; }
        sleep 0.05
    done
    base=$(sed -n 's/^ready: //p' "$work/out")
    "$cli" deploy --source functions --configuration "$configuration" --scratch-path "$PWD/.build" \
        --emulator "$base" >/dev/null 2>&1
}

# Milliseconds until every queued delivery is done. It asks for one event only: reading the
# whole log (tens of megabytes of JSON) is not draining, and is left to `events`.
drain() {
    local begin=$(date +%s%N)
    curl -fsS "$base/emulator/v1/projects/demo-project/events?wait=true&limit=1" -o /dev/null || return 1
    echo "$(( ($(date +%s%N) - begin) / 1000000 ))"
}

# Fetches the whole event log; says how many events (all of them) are not done.
events() {
    curl -fsS "$base/emulator/v1/projects/demo-project/events?limit=1000000" -o "$work/events.json" || return 1
    echo "$(grep -o '"done":false' "$work/events.json" | wc -l) not done"
}

# Fails the run unless every event is done and delivered, and each leaderboard entry is the best
# non-cheat score stored.
check() {
    curl -fsS "$base/scores.json?ns=demo-project-default-rtdb" -o "$work/scores.json"
    curl -fsS "$base/leaderboard.json?ns=demo-project-default-rtdb" -o "$work/leaderboard.json"
    python3 - "$work" <<'PY'
import json, sys
sys.path.insert(0, "Benchmarks")
from trigger_outcome import outcome, percentile_ms, stages, summary
work = sys.argv[1]
events = json.load(open(f"{work}/events.json"))["events"]
scores = json.load(open(f"{work}/scores.json")) or {}
leaderboard = json.load(open(f"{work}/leaderboard.json")) or {}
undone, failed, exact, passed = outcome(events, scores, leaderboard)
print(f"   {summary(events, scores, undone, failed, exact)}")
timed = stages(events)
if timed:
    for name, values in [("commit to function done", [w + r for w, r in timed]),
                         ("  commit to delivery start (outbox, bus queue)", [w for w, _ in timed]),
                         ("  delivery start to function done (worker, Admin calls)", [r for _, r in timed])]:
        print(f"   {name}: p50 {percentile_ms(values, 0.5):.1f} ms, p99 {percentile_ms(values, 0.99):.1f} ms")
    print(f"   (over the {len(timed)} events delivered without a restart)")
sys.exit(0 if passed else 1)
PY
}

# CPU ticks (utime + stime) of the emulator, and of its worker processes: those alive now and
# those that ended (the emulator's cutime + cstime), as "emulator workers". A worker reaped while
# they are read would count twice, so they are read again until no worker ended meanwhile.
cpu_ticks() {
    local workers reaped stat pid
    while true; do
        reaped=$(awk '{print $16 + $17}' "/proc/$emulator/stat")
        workers=0
        for pid in $(pgrep -P "$emulator"); do
            workers=$((workers + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)))
        done
        stat=$(awk '{print $14 + $15, $16 + $17}' "/proc/$emulator/stat")
        [ "${stat#* }" = "$reaped" ] && break
    done
    echo "${stat% *} $((workers + reaped))"
}

start
echo "== $seconds s of score pushes (each fires onScoreWrite in the worker), $connections connections"
read -r emulator_before workers_before < <(cpu_ticks)
# wrk's CPU seconds (user, system) go to wrk-cpu, its own errors to stderr.
TIMEFORMAT='%U %S'
{ time wrk -t2 -c"$connections" -d"${seconds}s" -s Benchmarks/score-pushes.lua "$base" >"$work/wrk" 2>&3; } 3>&2 2>"$work/wrk-cpu"
grep -E 'Requests/sec|Non-2xx' "$work/wrk" | sed 's/^/   /'
drained=$(drain)
# CPU is read once the deliveries are drained, before the checks' own reads.
read -r emulator_after workers_after < <(cpu_ticks)
writes=$(curl -fsS "$base/scores.json?ns=demo-project-default-rtdb&shallow=true" | grep -o 'true' | wc -l)
undone=$(events)
echo "== $writes scores written; draining the deliveries: $drained ms, $undone"
# Over the load as wrk timed it ("N requests in 15.02s") and the drain.
python3 - "$writes" "$drained" "$work/wrk" <<'PY'
import re, sys
events, drained = int(sys.argv[1]), int(sys.argv[2])
number, unit = re.search(r"requests in ([\d.]+)(ms|s|m)\b", open(sys.argv[3]).read()).groups()
load = float(number) * {"ms": 0.001, "s": 1.0, "m": 60.0}[unit]
print(f"   {events / (load + drained / 1000):,.0f} events/s end to end "
      f"({events:,} in {load:.2f} s of load and {drained:,} ms of draining)")
PY
# Where the machine's time went, per event: the emulator (HTTP writes, SQLite, the bus, HTTP
# delivery, the Admin calls it serves), the function's worker processes (the handler and its
# two Admin calls), and the load generator; and the events/s those figures allow on this machine.
python3 - "$writes" "$((emulator_after - emulator_before))" "$((workers_after - workers_before))" \
    "$(tail -n 1 "$work/wrk-cpu")" "$(getconf CLK_TCK)" "$(getconf _NPROCESSORS_ONLN)" \
    "$(pgrep -P "$emulator" | wc -l)" <<'PY'
import sys
events, emulator, workers, load, tick, cores, processes = sys.argv[1:]
events, tick, cores = int(events), int(tick), int(cores)
micros = lambda seconds: seconds * 1e6 / max(events, 1)
emulator, workers = micros(int(emulator) / tick), micros(int(workers) / tick)
load = micros(sum(float(part) for part in load.split()))
total = emulator + workers + load
print(f"   CPU per event (/proc, over the load and the drain): emulator {emulator:.0f} µs, "
      f"workers ({processes} processes now) {workers:.0f} µs, wrk {load:.0f} µs; "
      f"total {total:.0f} µs, so at most {cores * 1e6 / total:,.0f} events/s on {cores} cores")
PY
echo "== checking every event and the leaderboard:"
check

echo "== 5 s more load, then kill -9 of the emulator and its worker mid-delivery"
wrk -t2 -c"$connections" -d5s -s Benchmarks/score-pushes.lua "$base" | grep -E 'Requests/sec' | sed 's/^/   /'
kill -9 "$emulator"
pkill -9 -f "$PWD/.build/.*/AppFunctions" || true
wait "$emulator" 2>/dev/null || true
rm -f "$work/out"
start
drained=$(drain)
undone=$(events)
echo "== restarted on the same data and redeployed; draining: $drained ms, $undone"
echo "== checking every event and the leaderboard:"
check
