#!/usr/bin/env bash
# Loads the emulator with database writes that trigger the deployed functions/ sample over HTTP
# (onScoreWrite reads and writes /leaderboard through the worker's HTTP Admin client), then
# checks what a user relies on: every event delivered, the leaderboard right, and after a
# kill -9 of the emulator mid-delivery, a restart on the same data plus a redeploy delivers the
# rest. Needs wrk (apt-get install wrk).
#   Benchmarks/trigger-load.sh [seconds of load, default 15] [debug|release, default release]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-15}"
configuration="${2:-release}"
command -v wrk >/dev/null || { echo "trigger-load: needs wrk (apt-get install wrk)" >&2; exit 1; }

build=(swift build -c "$configuration" --package-path "$PWD/functions" --scratch-path "$PWD/.build")
"${build[@]}" --product functions >&2
cli="$("${build[@]}" --show-bin-path)/functions"
work="$(mktemp -d)"
trap 'pkill -P $$ 2>/dev/null || true; kill "${emulator:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

start() {
    "$cli" emulators:start --port 0 --data-dir "$work/data" >"$work/out" 2>"$work/err" &
    emulator=$!
    while ! grep -q '^ready: ' "$work/out" 2>/dev/null; do
        kill -0 "$emulator" 2>/dev/null || { cat "$work/err" >&2; exit 1; }
        sleep 0.05
    done
    base=$(sed -n 's/^ready: //p' "$work/out")
    "$cli" deploy --source functions --configuration "$configuration" --scratch-path "$PWD/.build" \
        --emulator "$base" >/dev/null 2>&1
}

# Milliseconds until every queued delivery is done, and how many of the last 1,000 events are not.
drain() {
    local begin=$(date +%s%N)
    curl -fsS "$base/emulator/v1/projects/demo-project/events?wait=true" -o "$work/events.json"
    echo "$(( ($(date +%s%N) - begin) / 1000000 )) ms, $(grep -o '"done":false' "$work/events.json" | wc -l) not done"
}

cat >"$work/push.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Authorization"] = "Bearer owner"
wrk.headers["Content-Type"] = "application/json"
counter = 0
request = function()
  counter = counter + 1
  local body = string.format('{"playerName": "p%d", "score": %d, "cheatMode": false}', counter % 20, counter % 1000)
  return wrk.format(nil, "/scores.json?ns=demo-project-default-rtdb", nil, body)
end
LUA

start
echo "== $seconds s of score pushes (each fires onScoreWrite in the worker), 16 connections"
wrk -t2 -c16 -d"${seconds}s" -s "$work/push.lua" "$base" | grep -E 'Requests/sec|Non-2xx' | sed 's/^/   /'
writes=$(curl -fsS "$base/scores.json?ns=demo-project-default-rtdb&shallow=true" | grep -o 'true' | wc -l)
echo "== $writes scores written; draining the deliveries: $(drain)"
echo "== the leaderboard (best of each player; p0 must be 980, p19 999):"
curl -fsS "$base/leaderboard.json?ns=demo-project-default-rtdb" | tr ',' '\n' | grep -E '"p0"|"p19"' | sed 's/^/   /'

echo "== 5 s more load, then kill -9 of the emulator and its worker mid-delivery"
wrk -t2 -c16 -d5s -s "$work/push.lua" "$base" | grep -E 'Requests/sec' | sed 's/^/   /'
kill -9 "$emulator"
pkill -9 -f "$PWD/.build/.*/AppFunctions" || true
wait "$emulator" 2>/dev/null || true
rm -f "$work/out"
start
echo "== restarted on the same data and redeployed; draining: $(drain)"
