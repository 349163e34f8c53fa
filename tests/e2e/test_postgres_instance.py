"""The production Dagster instance (deploy/dagster.yaml) on a real PostgreSQL server: a
`metrics-etl run` records its run and materializations there, and `dagster-daemon` evaluates the
spool sensor, queues its run and launches it, all recorded in PostgreSQL; a run of the daemon's
that fails reaches the alert channel (a loopback incoming webhook) through its sensor.

The server is Debian's (`postgresql` package; .ci/run installs it), started by the test on
loopback in a temporary directory and stopped at the end (tests/e2e/_postgres.py).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import dagster as dg
import duckdb
import pytest

from tests._alerts import HOOK_KEY, webhook_server
from tests._emulator import environ_for
from tests.e2e.chaos import Emulated, Emulator, deliver_webhooks, run_cli, start_emulator, stop

ROOT = Path(__file__).resolve().parents[2]
DEPLOY_YAML = ROOT / "deploy" / "dagster.yaml"
DAEMON = Path(sys.executable).parent / "dagster-daemon"
SENSOR = "webhook_spool_sensor"
DAEMON_WAIT = 180  # a bound on waiting for the daemon, not a measured duration


@pytest.fixture(scope="module")
def emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Emulator]:
    # The emulator's day is our yesterday, so yesterday's report is not out yet: the report
    # availability sensor (METRICS_AUTOMATION turns it on too) requests nothing, and the only
    # run the daemon starts is the spool sensor's.
    yesterday = (datetime.now(UTC).date() - timedelta(days=1)).isoformat()
    emu = start_emulator(
        workdir=tmp_path_factory.mktemp("emulator"),
        seed=31,
        extra=("--today", yesterday, "--users", "12", "--repos", "2", "--issues-per-repo", "2"),
    )
    try:
        yield emu
    finally:
        stop(emu.process)


def _environment(emulator: Emulator, home: Path, dagster_home: Path, pg_env: dict[str, str]) -> dict[str, str]:
    """A deployment's environment: the service, the data home, the instance and its database."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SERVICE_", "WEBHOOK_", "DAGSTER_", "METRICS_"))}
    return (
        env
        | environ_for(emulator)
        | pg_env
        | {
            "METRICS_HOME": str(home),
            "DAGSTER_HOME": str(dagster_home),
            "WEBHOOK_SPOOL_DIR": str(home / "spool"),
            "PYTHONUNBUFFERED": "1",
        }
    )


def _dagster_home(path: Path) -> Path:
    path.mkdir(parents=True)
    shutil.copyfile(DEPLOY_YAML, path / "dagster.yaml")
    return path


def _sqlite_files(dagster_home: Path) -> list[str]:
    """SQLite files Dagster would have made had the instance fallen back to its default storage."""
    return [str(p.relative_to(dagster_home)) for p in dagster_home.rglob("*.db")]


def test_a_cli_run_is_recorded_in_postgres(postgres, emulator, tmp_path, monkeypatch):
    pg_env = postgres.create_database("cli_run")
    home, dagster_home = tmp_path / "home", _dagster_home(tmp_path / "dagster")
    day = (datetime.now(UTC).date() - timedelta(days=5)).isoformat()
    env = _environment(emulator, home, dagster_home, pg_env)

    started = time.monotonic()
    code, output = run_cli(
        ["run", "--day", day, "--no-latest", "--no-snapshots"], env=env, cwd=tmp_path, log=tmp_path / "run.log"
    )
    print(f"\ncli run on postgres: {time.monotonic() - started:.1f}s")
    assert code == 0, output[-3000:]

    for name, value in pg_env.items():
        monkeypatch.setenv(name, value)
    with dg.DagsterInstance.from_config(str(dagster_home)) as instance:
        assert type(instance.run_storage).__module__.startswith("dagster_postgres")
        # The day's reports, then the bill of its month: a run each.
        runs = {r.job_name: r for r in instance.get_runs()}
        assert sorted(runs) == ["billing_job", "usage_daily_job"]
        assert all(r.status == dg.DagsterRunStatus.SUCCESS for r in runs.values())
        run = runs["usage_daily_job"]
        event = instance.get_latest_materialization_event(dg.AssetKey(["core", "daily_totals"]))
        assert event is not None and event.run_id == run.run_id
        assert event.asset_materialization is not None and event.asset_materialization.partition == day

    # Straight from PostgreSQL's tables, not through Dagster: the rows are there.
    assert postgres.count("cli_run", "SELECT count(*) FROM runs") == 2
    materializations = postgres.count(
        "cli_run", "SELECT count(*) FROM event_logs WHERE dagster_event_type = 'ASSET_MATERIALIZATION'"
    )
    assert materializations >= 8  # every usage table, and the serving copy
    assert _sqlite_files(dagster_home) == []


def _sensor_ticks(instance: dg.DagsterInstance, name: str) -> list[Any]:
    states = [s for s in instance.all_instigator_state() if s.instigator_name == name]
    return [tick for s in states for tick in instance.get_ticks(s.instigator_origin_id, s.selector_id)]


def _run_errors(instance: dg.DagsterInstance, run_id: str) -> str:
    lines = []
    for entry in instance.all_logs(run_id):
        event = entry.dagster_event
        if event is not None and event.is_failure:
            lines.append(entry.user_message)
    return "\n".join(lines)[-3000:]


def _stop_group(process: subprocess.Popen[Any]) -> None:
    """The daemon with its code server and the run workers they launched: one process group."""
    group = process.pid  # started in a new session: the group's id is the daemon's pid
    if process.poll() is None:
        os.killpg(group, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=30)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(group, signal.SIGKILL)  # whatever outlived the daemon (a run worker)
    process.wait()


def test_the_daemon_evaluates_the_spool_sensor_and_runs_its_request(postgres, emulator, tmp_path, monkeypatch):
    pg_env = postgres.create_database("daemon")
    home, dagster_home = tmp_path / "home", _dagster_home(tmp_path / "dagster")
    env = _environment(emulator, home, dagster_home, pg_env) | {"METRICS_AUTOMATION": "on"}
    for name, value in pg_env.items():
        monkeypatch.setenv(name, value)

    started = time.monotonic()
    held = deliver_webhooks(emulator, Emulated(home), env=env, log=tmp_path / "receiver.log", issues=1)
    assert held == 1, (tmp_path / "receiver.log").read_text()[-2000:]
    print(f"\none delivery through the receiver into the spool: {time.monotonic() - started:.1f}s")

    daemon_log = tmp_path / "daemon.log"
    # Opened first, so the tables exist before the daemon's processes all open the instance.
    with dg.DagsterInstance.from_config(str(dagster_home)) as instance:
        started = time.monotonic()
        with daemon_log.open("w") as out:
            daemon = subprocess.Popen(
                [str(DAEMON), "run", "-w", "workspace.yaml"],
                cwd=ROOT,
                env=env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            ticked = run = None
            deadline = time.monotonic() + DAEMON_WAIT
            while time.monotonic() < deadline and daemon.poll() is None:
                if ticked is None and any(t.run_ids for t in _sensor_ticks(instance, SENSOR)):
                    ticked = time.monotonic() - started
                runs = instance.get_runs(dg.RunsFilter(tags={"dagster/sensor_name": SENSOR}))
                run = runs[0] if runs else None
                if run is not None and run.is_finished:
                    break
                time.sleep(1)
            finished = time.monotonic() - started
        finally:
            _stop_group(daemon)

        def explain(what: str) -> str:
            errors = _run_errors(instance, run.run_id) if run is not None else ""
            return f"{what}\n{errors}\n--- daemon log (tail) ---\n{daemon_log.read_text()[-4000:]}"

        assert ticked is not None, explain(f"no {SENSOR} tick requested a run within {DAEMON_WAIT}s")
        assert run is not None, explain(f"no run tagged dagster/sensor_name={SENSOR}")
        assert run.status == dg.DagsterRunStatus.SUCCESS, explain(f"run {run.run_id}: {run.status}")
        assert run.job_name == "webhook_events_job"
        (tick,) = [t for t in _sensor_ticks(instance, SENSOR) if t.run_ids]
        assert tick.run_ids == [run.run_id]
        print(f"daemon: sensor tick with a request {ticked:.1f}s, its run succeeded {finished:.1f}s after start")

    assert postgres.count("daemon", "SELECT count(*) FROM job_ticks") >= 1
    assert postgres.count("daemon", "SELECT count(*) FROM runs") >= 1
    assert _sqlite_files(dagster_home) == []
    # The daemon and its run workers are gone: the warehouse is free to open.
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        events = conn.execute("SELECT event, action FROM events.webhook_deliveries").fetchall()
    assert events == [("issues", "opened")]


def test_the_daemon_sends_a_failed_run_to_the_alert_channel(postgres, emulator, tmp_path, monkeypatch):
    pg_env = postgres.create_database("daemon_alert")
    home, dagster_home = tmp_path / "home", _dagster_home(tmp_path / "dagster")
    # A warehouse path that is a directory: the spool sensor's run fails opening it.
    (home / "warehouse-is-a-directory").mkdir(parents=True)
    with webhook_server() as hook:
        env = _environment(emulator, home, dagster_home, pg_env) | {
            "METRICS_AUTOMATION": "on",
            "METRICS_ALERTS": hook.url,
            "WAREHOUSE_PATH": str(home / "warehouse-is-a-directory"),
        }
        for name, value in pg_env.items():
            monkeypatch.setenv(name, value)
        held = deliver_webhooks(emulator, Emulated(home), env=env, log=tmp_path / "receiver.log", issues=1)
        assert held == 1, (tmp_path / "receiver.log").read_text()[-2000:]

        daemon_log = tmp_path / "daemon.log"
        with dg.DagsterInstance.from_config(str(dagster_home)):
            started = time.monotonic()
            with daemon_log.open("w") as out:
                daemon = subprocess.Popen(
                    [str(DAEMON), "run", "-w", "workspace.yaml"],
                    cwd=ROOT,
                    env=env,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            try:
                deadline = time.monotonic() + DAEMON_WAIT
                while time.monotonic() < deadline and daemon.poll() is None and not hook.texts:
                    time.sleep(1)
                time.sleep(5)  # a second message for the same failure would come within a tick
            finally:
                _stop_group(daemon)
    assert hook.texts, f"no alert within {DAEMON_WAIT}s\n{daemon_log.read_text()[-4000:]}"
    print(f"\ndaemon: failure alert delivered {time.monotonic() - started:.1f}s after start")
    (text,) = hook.texts
    assert text.startswith("metrics-etl: webhook_events_job failed\n"), text
    assert "full log: run " in text and HOOK_KEY not in text
