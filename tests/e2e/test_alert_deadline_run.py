"""`metrics-etl run` as a user runs it, its failure alerted to an endpoint that answers one byte
every 5 s (the issue's: the run stayed alive until killed at 150 s). The run ends after one
alert deadline, says in one line that the alert was sent and not answered, and keeps the
command's later alerts for the next run."""

from __future__ import annotations

import json
import subprocess
from datetime import date, timedelta

from emulator import EmulatorConfig, running_emulator
from pipelines.alerts import OUTBOX_NAME, AlertConfig
from tests._alerts import HOOK_KEY, slow_peer
from tests._emulator import environ_for
from tests.e2e.test_cli_run import CLI, _env
from tests.integration.dagster.test_materialize import _user_record

KILLED_AT = 150  # where the run was killed


def test_a_failed_run_alerting_an_endpoint_dripping_its_answer_ends_after_one_deadline(tmp_path):
    day = date.today() - timedelta(days=6)
    report = tmp_path / "users.ndjson"
    report.write_text(_user_record(day, 7, 3) + "\n{not json\n")  # a blocking check fails the run
    config = EmulatorConfig(seed=5, users=5, repos=1, report_file=report, report_file_day=day)
    with running_emulator(config) as emu, slow_peer("drip", interval=5.0) as peer:
        done = subprocess.run(
            [CLI, "run", "--day", day.isoformat(), "--no-latest", "--no-snapshots"],
            env=_env(
                tmp_path,
                **environ_for(emu),
                METRICS_ALERTS=peer.url,
                METRICS_START_DAY=(day - timedelta(days=3)).isoformat(),
            ),
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=KILLED_AT,
        )
        connections = peer.connections
    assert done.returncode == 1, done.stderr[-3000:]
    lines = done.stderr.strip().splitlines()
    timeout = AlertConfig().timeout
    assert (
        f"alert to webhook 127.0.0.1: sent; no answer within {timeout:g} s: it may have arrived, not sent again"
        in lines
    )
    assert lines[-1].startswith("metrics-etl run: ") and "Traceback" not in done.stderr
    assert connections == 1  # one exchange, one deadline: the command's later alerts were kept instead
    kept = json.loads((tmp_path / "dagster" / OUTBOX_NAME).read_text())["alerts"]
    not_tried = [line for line in lines if line.startswith("alert not delivered")]
    assert len(kept) == len(not_tried) and all(
        "not tried" in line and "kept and tried again by the next run or sensor tick" in line for line in not_tried
    )
    assert HOOK_KEY not in done.stderr + done.stdout
