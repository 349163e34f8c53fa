#!/usr/bin/env bash
# `make dev`: the emulator on loopback and `dagster dev` on the same workspace, wired together.
# Its files are under METRICS_HOME, by default the demo's home (`metrics-etl dev-env` says where),
# so after `make demo` the UI shows the demo's runs and partitions. Dagster's UI is on
# DAGSTER_PORT (default 3000).
#
# Ctrl-C (or SIGTERM, SIGHUP) stops both within seconds. Each child runs in its own process
# group (`set -m` while starting it), for two reasons: a background job of a script would
# otherwise ignore SIGINT, so only this script's trap can stop it; and a whole group (dagster dev's
# webserver, daemon, code servers and runs) can be killed if it outlives the bound. Each also
# starts with SIGINT's default action (`env --default-signal`): `make dev &` from a script starts
# this script with SIGINT ignored, and dagster dev, which handles SIGTERM as SIGINT, would then
# ignore both and be killed only at the bound.
set -euo pipefail
cd "$(dirname "$0")/.."
port="${DAGSTER_PORT:-3000}"
STOP_SECONDS=10
start_day="${METRICS_START_DAY:-}"
# METRICS_HOME, DAGSTER_HOME and METRICS_START_DAY: the demo's home unless METRICS_HOME names
# another, partitions from the first day it holds.
eval "$(.venv/bin/metrics-etl ${METRICS_HOME:+--home "$METRICS_HOME"} dev-env)"
if [ -n "$start_day" ]; then export METRICS_START_DAY="$start_day"; fi
home="$METRICS_HOME"
mkdir -p "$home"
# Versions before this one left the emulator's credentials in the data home.
rm -f "$home/credentials.json" "$home/credentials-app-key.pem"

groups=()
# True while a process of one of the groups is alive (a zombie waiting for its parent is not).
alive() {
    ps -e -o pgid=,stat= | awk -v groups=" ${groups[*]} " \
        'index(groups, " " $1 " ") && $2 !~ /^Z/ { found = 1 } END { exit !found }'
}
kill_groups() {
    for group in "${groups[@]}"; do kill "-$1" -- "-$group" 2>/dev/null || true; done
}
stop() {
    # A second Ctrl-C does not wait.
    trap 'kill_groups KILL; rm -rf "${creds_dir:-}"; exit 130' INT TERM HUP
    trap - EXIT
    # dagster dev shuts its services down on SIGINT, as on a terminal's Ctrl-C; the emulator on SIGTERM.
    if [ -n "${dagster_pid:-}" ]; then kill -INT -- "-$dagster_pid" 2>/dev/null || true; fi
    if [ -n "${emulator_pid:-}" ]; then kill -TERM -- "-$emulator_pid" 2>/dev/null || true; fi
    for _ in $(seq $((STOP_SECONDS * 5))); do alive || break; sleep 0.2; done
    if alive; then
        echo "dev.sh: still running after ${STOP_SECONDS}s, killing what is left" >&2
        kill_groups KILL
    fi
    rm -rf "${creds_dir:-}"
    exit "$1"
}

# Ctrl-C is how `make dev` is meant to end: a success, so make reports no error.
trap 'stop 0' INT
trap 'stop 143' TERM
trap 'stop 129' HUP
trap 'stop $?' EXIT
# The emulator's credentials (its token, an app key) live as long as it does: in a private
# directory of their own (mode 0700), removed when this script ends, never in the data home.
creds_dir="$(mktemp -d "${TMPDIR:-/tmp}/metrics-etl-dev.XXXXXX")"
creds="$creds_dir/credentials.json"

set -m
env --default-signal=INT .venv/bin/metrics-etl emulator --credentials-out "$creds" --seed 42 --users 300 --repos 12 </dev/null &
emulator_pid=$!
groups+=("$emulator_pid")
set +m
for _ in $(seq 200); do [ -s "$creds" ] && break; sleep 0.1; done
[ -s "$creds" ] || { echo "the emulator did not start" >&2; exit 1; }
eval "$(.venv/bin/python - "$creds" <<'PY'
import json, shlex, sys
c = json.load(open(sys.argv[1]))
env = {"SERVICE_BASE_URL": c["base_url"], "SERVICE_GRAPHQL_URL": c["graphql_url"],
       "SERVICE_OAUTH_URL": c["oauth_url"], "SERVICE_TOKEN": c["token"], "SERVICE_ORG": c["org"],
       "SERVICE_ENTERPRISE": c["enterprise"], "WEBHOOK_SECRET": c["webhook_secret"]}
# The vendors the emulator serves (docs/vendors.md): their keys and addresses, named in the
# credentials as the settings' fields are.
from pipelines.config import ENV_VARS, VENDOR_FIELDS
env |= {ENV_VARS[f]: c[f] for fields in VENDOR_FIELDS.values() for f in fields if c.get(f)}
print("\n".join(f"export {k}={shlex.quote(v)}" for k, v in env.items()))
PY
)"
# The same data home and Dagster instance `metrics-etl --home "$home" run` (and the demo) record runs in.
.venv/bin/metrics-etl init >/dev/null
set -m
# `dagster dev` warns at every start that `dg dev` (the dagster-dg-cli package, not a dependency
# here) supersedes it: filtered by that message alone, as nothing here can act on it.
PYTHONWARNINGS="${PYTHONWARNINGS:+$PYTHONWARNINGS,}ignore:Function \`dev_command\` is superseded" \
    env --default-signal=INT .venv/bin/dagster dev -w workspace.yaml --host 127.0.0.1 --port "$port" </dev/null &
dagster_pid=$!
groups+=("$dagster_pid")
set +m
# `wait`, unlike a foreground command, returns as soon as a trapped signal arrives.
wait "$dagster_pid"
