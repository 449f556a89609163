#!/usr/bin/env bash
# Deploys the sample functions/ to a local emulator and shows the STALE ping loop.
#
#   ./deploy.sh [--port N] [--project ID] [--no-demo]   build, start the emulator if none answers, deploy
#   ./deploy.sh --stop                                  stop the emulator this script started
#   ./deploy.sh --watch                                 then build and deploy again on every save (Ctrl-C stops)
#   --release: an optimized build (from a fresh clone 1.7 times longer to reach the STALE ping than
#   the default debug build, which is ample for local work); --data-dir DIR: state elsewhere
#
# State lives in .functions/ (SQLite, the emulator's log and pid). Re-running redeploys.
set -euo pipefail
cd "$(dirname "$0")"

port=4400
project=demo-project
demo=1
stop=0
# Debug by default: from a fresh clone it reaches the STALE ping in 253 s where release takes
# 442 s (2 cores), and a local emulator does not need optimized code.
configuration=debug
watch=0
data=.functions
while [ $# -gt 0 ]; do
    case "$1" in
        --port) port="${2:?--port needs a number}"; shift 2 ;;
        --project) project="${2:?--project needs an id}"; shift 2 ;;
        --no-demo) demo=0; shift ;;
        --stop) stop=1; shift ;;
        --debug) configuration=debug; shift ;;
        --release) configuration=release; shift ;;
        --watch) watch=1; shift ;;
        --data-dir) data="${2:?--data-dir needs a folder}"; shift 2 ;;
        -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "deploy.sh: unknown option '$1' (try --help)" >&2; exit 2 ;;
    esac
done

pidfile="$data/emulator.pid"
log="$data/emulator.log"
base="http://127.0.0.1:$port"
mkdir -p "$data"

if [ "$stop" = 1 ]; then
    if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null; then
        pid="$(cat "$pidfile")"
        kill "$pid"
        # Wait for it to finish its graceful stop (its worker goes with it).
        for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        rm -f "$pidfile"
        echo "stopped the emulator"
    else
        echo "no emulator started by deploy.sh is running"
    fi
    exit 0
fi

echo "› building the functions CLI ($configuration)…"
# Built through functions/ (which depends on this package by path) into the root's .build, so the
# CLI and the deployed functions share one package graph and every module compiles once.
build=(swift build -c "$configuration" --package-path "$PWD/functions" --scratch-path "$PWD/.build")
"${build[@]}" --product functions >&2
cli="$("${build[@]}" --show-bin-path)/functions"

if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null && grep -q '^ready: ' "$log" 2>/dev/null; then
    # The emulator an earlier run started (on whatever port) is still running: deploy to it.
    base=$(grep -m1 '^ready: ' "$log" | sed 's/^ready: //')
    echo "› the emulator started earlier answers on $base"
elif [ "$port" != 0 ] && curl -fsS "$base/emulator/v1/projects/$project/functions" >/dev/null 2>&1; then
    echo "› an emulator already answers on $base"
else
    echo "› starting the emulator on $base (data in $data/, log in $log)…"
    nohup "$cli" emulators:start --port "$port" --project "$project" --data-dir "$data" >"$log" 2>&1 &
    echo $! >"$pidfile"
    for _ in $(seq 1 600); do
        grep -q '^ready: ' "$log" 2>/dev/null && break
        kill -0 "$(cat "$pidfile")" 2>/dev/null || { echo "the emulator exited:" >&2; cat "$log" >&2; exit 1; }
        sleep 0.1
    done
    grep -q '^ready: ' "$log" || { echo "the emulator did not become ready; see $log" >&2; exit 1; }
    base=$(grep -m1 '^ready: ' "$log" | sed 's/^ready: //')
    port="${base##*:}"
    echo "› the emulator is ready on $base"
fi

"$cli" deploy --source functions --configuration "$configuration" --scratch-path "$PWD/.build" \
    --emulator "$base" --project "$project"

owner=(-H 'Authorization: Bearer owner' -H 'Content-Type: application/json')
if [ "$demo" = 1 ]; then
    echo
    echo "› the STALE ping loop: a device subscribes to PUSH_RC, a template is published, pushConfig pings the device"
    token=$(curl -fsS -X POST "$base/emulator/v1/projects/$project/devices" -d '{"platform": "ios"}' \
        | sed -E 's/.*"token":"([^"]+)".*/\1/')
    curl -fsS -X POST "$base/iid/v1:batchAdd" "${owner[@]}" \
        -d "{\"to\": \"/topics/PUSH_RC\", \"registration_tokens\": [\"$token\"]}" >/dev/null
    echo "  device ${token:0:16}… subscribed to PUSH_RC"
    version=$(curl -fsS -X PUT "$base/v1/projects/$project/remoteConfig" "${owner[@]}" -H 'If-Match: *' \
        -d '{"parameters": {"welcome_message": {"defaultValue": {"value": "Hello from the emulator"}}}}' \
        | sed -E 's/.*"versionNumber":"([0-9]+)".*/\1/')
    echo "  published Remote Config template version $version"
    curl -fsS "$base/emulator/v1/projects/$project/events?wait=true" >/dev/null   # until delivered
    echo "  the device's inbox: $(curl -fsS "$base/emulator/v1/projects/$project/devices/$token/messages")"
    echo
    echo "› onUserCreated: creating a user writes its profile to /users/{uid}"
    # Repeatable on any state: a user ada left by an earlier run is deleted first.
    curl -sS -o /dev/null -X POST "$base/identitytoolkit.googleapis.com/v1/projects/$project/accounts:delete" \
        "${owner[@]}" -d '{"localId": "ada"}'
    curl -fsS -X POST "$base/identitytoolkit.googleapis.com/v1/projects/$project/accounts" "${owner[@]}" \
        -d '{"localId": "ada", "email": "ada@example.com", "displayName": "Ada"}' >/dev/null
    curl -fsS "$base/emulator/v1/projects/$project/events?wait=true" >/dev/null
    echo "  /users/ada = $(curl -fsS "$base/users/ada.json?ns=$project-default-rtdb")"
    echo
    echo "› onScoreWrite: GameScore entries under /scores; /leaderboard/{playerName} keeps each player's best"
    curl -sS -o /dev/null -X DELETE "$base/leaderboard/ada.json?ns=$project-default-rtdb" "${owner[@]}"
    for entry in '10 false' '30 false' '20 false' '999 true'; do
        set -- $entry
        curl -fsS -X POST "$base/scores.json?ns=$project-default-rtdb" "${owner[@]}" \
            -d "{\"playerName\": \"ada\", \"score\": $1, \"cheatMode\": $2}" >/dev/null
        curl -fsS "$base/emulator/v1/projects/$project/events?wait=true" >/dev/null
    done
    echo "  scores 10, 30, 20 and a cheat of 999 → /leaderboard = $(curl -fsS "$base/leaderboard.json?ns=$project-default-rtdb")"
    echo
    echo "› the device side: simulated apps with the Remote Config client model"
    "$cli" demo:stale-loop --emulator "$base" --project "$project"
fi

cat <<NEXT

The web console (Remote Config versions and diffs, device inboxes, the event log, dead letters):
  $base/

Try it yourself:
  # register a device and subscribe it to PUSH_RC
  TOKEN=\$(curl -s -X POST $base/emulator/v1/projects/$project/devices -d '{}' | sed -E 's/.*"token":"([^"]+)".*/\\1/')
  curl -s -X POST $base/iid/v1:batchAdd -H 'Authorization: Bearer owner' \\
       -d "{\\"to\\": \\"/topics/PUSH_RC\\", \\"registration_tokens\\": [\\"\$TOKEN\\"]}"
  # publish a template (If-Match: * forces; use the ETag of GET .../remoteConfig for a safe publish)
  curl -s -X PUT $base/v1/projects/$project/remoteConfig -H 'Authorization: Bearer owner' -H 'If-Match: *' \\
       -d '{"parameters": {"color": {"defaultValue": {"value": "green"}}}}'
  # read the device's inbox: {"CONFIG_STATE": "STALE"} from pushConfig
  curl -s $base/emulator/v1/projects/$project/devices/\$TOKEN/messages
  # every event and its deliveries (or: $cli events:log --emulator $base --project $project)
  curl -s $base/emulator/v1/projects/$project/events
  # the official Admin SDKs and Google's clients work against it unchanged, with these variables
  # (eval "\$($cli emulators:env --emulator $base --project $project)"):
$("$cli" emulators:env --emulator "$base" --project "$project" | sed 's/^/  /')
Stop the emulator with: ./deploy.sh --stop
NEXT

if [ "$watch" = 1 ]; then
    echo
    echo "› watching functions/: each save is built ($configuration) and deployed; a failed build leaves this deployment serving"
    exec "$cli" deploy --watch --source functions --configuration "$configuration" --scratch-path "$PWD/.build" \
        --emulator "$base" --project "$project"
fi
