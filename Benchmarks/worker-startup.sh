#!/usr/bin/env bash
# Cold start and idle memory of functions worker binaries, side by side in one run: for each
# binary given (default: the release noop-worker), 20 launches timed from exec to the "ready:"
# line (min / median / max), the RSS once ready, the binary's size and whether it links
# FoundationNetworking. Compare two builds of the same worker:
#   Benchmarks/worker-startup.sh old/noop-worker Benchmarks/.build/release/noop-worker
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -eq 0 ]; then
    swift build -c release --package-path Benchmarks --product noop-worker >&2
    set -- "$(swift build -c release --package-path Benchmarks --show-bin-path)/noop-worker"
fi
launches="${LAUNCHES:-20}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Launches $1 once; prints "MICROS RSS_KB".
launch() {
    local fifo="$work/out.$RANDOM$RANDOM" line begin end pid rss
    mkfifo "$fifo"
    begin=$(date +%s%N)
    PORT=0 "$1" >"$fifo" 2>/dev/null &
    pid=$!
    exec 3<"$fifo"
    while read -r line <&3; do
        case "$line" in ready:*) break ;; esac
    done
    end=$(date +%s%N)
    sleep 0.2
    rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
    kill "$pid"
    wait "$pid" 2>/dev/null || true
    exec 3<&-
    rm -f "$fifo"
    echo "$(((end - begin) / 1000)) $rss"
}

printf '%-60s %10s %10s %10s %9s %9s %s\n' binary "min ms" "median ms" "max ms" "RSS MB" "size MB" FoundationNetworking
for binary in "$@"; do
    : >"$work/runs"
    for _ in $(seq "$launches"); do launch "$binary" >>"$work/runs"; done
    times=($(cut -d' ' -f1 "$work/runs" | sort -n))
    rss=($(cut -d' ' -f2 "$work/runs" | sort -n))
    middle=$(((${#times[@]} - 1) / 2))
    net=$(ldd "$binary" | grep -qi 'FoundationNetworking' && echo yes || echo no)
    awk -v name="$binary" -v min="${times[0]}" -v median="${times[$middle]}" -v max="${times[-1]}" \
        -v rss="${rss[$middle]}" -v size="$(stat -c %s "$binary")" -v net="$net" 'BEGIN {
        printf "%-60s %10.1f %10.1f %10.1f %9.1f %9.1f %s\n", name, min / 1000, median / 1000, max / 1000,
            rss / 1024, size / 1048576, net }'
done
