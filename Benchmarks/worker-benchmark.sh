#!/usr/bin/env bash
# Measures a functions worker (the noop-worker product, one function that does nothing):
# cold start (launch → "ready:" line), idle memory (RSS once ready), and CloudEvents served
# per second, with wrk (apt-get install wrk), next to GET /__/health on the same worker as the
# baseline of the HTTP stack alone. wrk and the worker share this machine's cores.
#   Benchmarks/worker-benchmark.sh [seconds per load run, default 10] [connections, default 32]
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${1:-10}"
connections="${2:-32}"
command -v wrk >/dev/null || { echo "worker-benchmark: needs wrk (apt-get install wrk)" >&2; exit 1; }

swift build -c release --package-path Benchmarks --product noop-worker >&2
bin="$(swift build -c release --package-path Benchmarks --show-bin-path)/noop-worker"
work="$(mktemp -d)"
trap 'kill "${pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

# Starts the worker on a free port; sets pid and url.
start_worker() {
    local fifo="$work/out.$RANDOM"
    mkfifo "$fifo"
    local line
    PORT=0 "$bin" >"$fifo" 2>/dev/null &
    pid=$!
    exec 3<"$fifo"
    while read -r line <&3; do
        case "$line" in ready:*) break ;; esac
    done
    url="${line#ready: }"
}

stop_worker() {
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    exec 3<&-
}

echo "== cold start (launch to ready line, 20 launches) and idle memory once ready"
Benchmarks/worker-startup.sh "$bin"

start_worker
cat >"$work/event.lua" <<'LUA'
wrk.method = "POST"
wrk.body = '{"message":"hello"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["ce-specversion"] = "1.0"
wrk.headers["ce-type"] = "dev.benchmark.v1.noop"
wrk.headers["ce-source"] = "//benchmark"
wrk.headers["ce-id"] = "event-1"
LUA

run() {
    wrk -t2 -c"$connections" -d"${duration}s" --latency "$@" |
        grep -E 'Requests/sec|Latency  |50%|99%|Non-2xx|Socket errors' | sed 's/^/   /'
}
echo "== GET /__/health (the HTTP stack alone), $connections connections, ${duration} s"
health=$(run "$url/__/health")
echo "$health"
echo "== POST /noop, binary-mode CloudEvent, trivial handler, $connections connections, ${duration} s"
events=$(run -s "$work/event.lua" "$url/noop")
echo "$events"
h=$(echo "$health" | awk '/Requests\/sec/ { print $2 }')
e=$(echo "$events" | awk '/Requests\/sec/ { print $2 }')
awk -v h="$h" -v e="$e" 'BEGIN { printf "== CloudEvents/s ÷ health/s = %.2f\n", e / h }'
echo "== memory after the load (glibc keeps a malloc arena per busy thread; MALLOC_ARENA_MAX=1 keeps it near idle)"
grep -E 'VmRSS|VmHWM' "/proc/$pid/status"
stop_worker
stop_worker

echo "== the same load on a worker started with MALLOC_ARENA_MAX=1"
export MALLOC_ARENA_MAX=1
start_worker
run -s "$work/event.lua" "$url/noop" | grep -E 'Requests/sec'
grep -E 'VmRSS|VmHWM' "/proc/$pid/status"
