#!/usr/bin/env bash
# `make dev`: the emulator on loopback and `dagster dev` on the same workspace, wired together.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p data/dev/dagster_home
creds=data/dev/credentials.json
rm -f "$creds"
.venv/bin/metrics-etl emulator --credentials-out "$creds" --seed 42 --users 300 --repos 12 &
emulator_pid=$!
trap 'kill "$emulator_pid" 2>/dev/null || true' EXIT
for _ in $(seq 200); do [ -s "$creds" ] && break; sleep 0.1; done
[ -s "$creds" ] || { echo "the emulator did not start" >&2; exit 1; }
eval "$(.venv/bin/python - "$creds" <<'PY'
import json, shlex, sys
c = json.load(open(sys.argv[1]))
env = {"SERVICE_BASE_URL": c["base_url"], "SERVICE_GRAPHQL_URL": c["graphql_url"],
       "SERVICE_OAUTH_URL": c["oauth_url"], "SERVICE_TOKEN": c["token"], "SERVICE_ORG": c["org"],
       "SERVICE_ENTERPRISE": c["enterprise"], "WEBHOOK_SECRET": c["webhook_secret"]}
print("\n".join(f"export {k}={shlex.quote(v)}" for k, v in env.items()))
PY
)"
export DAGSTER_HOME="$PWD/data/dev/dagster_home"
cp deploy/dagster.yaml "$DAGSTER_HOME/dagster.yaml"
export METRICS_START_DAY="${METRICS_START_DAY:-$(date -u -d '35 days ago' +%F)}"
.venv/bin/dagster dev -w workspace.yaml --host 127.0.0.1
