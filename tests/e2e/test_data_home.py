"""One data home: `metrics-etl run` keeps every file under METRICS_HOME whatever directory it
is started from, records each run in the Dagster instance there, keeps its log there, and says
when it waits for another process's hold on the warehouse."""

import os
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from emulator import EmulatorConfig, running_emulator
from tests._emulator import environ_for

CLI = str(Path(sys.executable).parent / "metrics-etl")
_DAY = (datetime.now(UTC).date() - timedelta(days=6)).isoformat()
_ONE_DAY = ["run", "--day", _DAY, "--no-latest", "--no-snapshots"]


def _env(home: Path, **service: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SERVICE_", "WAREHOUSE_", "METRICS_", "DAGSTER_"))}
    return env | {"METRICS_HOME": str(home), "METRICS_START_DAY": _DAY} | service


def _run(args: list[str], env: dict[str, str], cwd: Path | str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CLI, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def emu():
    with running_emulator(EmulatorConfig(seed=31, users=10, repos=1)) as emulator:
        yield emulator


def test_a_run_started_from_the_root_directory_keeps_every_file_in_the_home_and_its_history(emu, tmp_path):
    home = tmp_path / "home"
    done = _run(_ONE_DAY, _env(home, **environ_for(emu)), cwd="/")
    assert done.returncode == 0, done.stderr[-3000:]
    assert not Path("/data").exists() and not Path("/warehouse.duckdb").exists()
    for name in ("warehouse.duckdb", "serving.duckdb", "lake", "raw", "http-cache.sqlite3", "dagster/dagster.yaml"):
        assert (home / name).exists(), name
    logs = list((home / "logs").glob("run-*.log"))
    with dg.DagsterInstance.from_config(str(home / "dagster")) as instance:
        # The day's reports, then the bill of its month: a run each, both in the home's history.
        runs = {run.job_name: run for run in instance.get_runs()}
        assert sorted(runs) == ["billing_job", "usage_daily_job"]
        assert all(run.status == dg.DagsterRunStatus.SUCCESS for run in runs.values())
        event = instance.get_latest_materialization_event(dg.AssetKey(["core", "daily_totals"]))
        assert event is not None and event.run_id == runs["usage_daily_job"].run_id
    (log,) = logs  # one log for the command, naming each run it records
    for run in runs.values():
        assert run.run_id in log.read_text(), "the log names the runs it records"


def test_a_failed_run_names_its_run_and_its_log_file_both_of_which_exist(emu, tmp_path):
    home = tmp_path / "home"
    done = _run(_ONE_DAY, _env(home, **environ_for(emu, SERVICE_TOKEN=emu.credentials["limited_token"])), cwd=tmp_path)
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()
    (log,) = (home / "logs").glob("run-*.log")
    assert f"full log: {log}" in line, line
    with dg.DagsterInstance.from_config(str(home / "dagster")) as instance:
        (run,) = instance.get_runs()
    assert f"run {run.run_id}" in line and run.status == dg.DagsterRunStatus.FAILURE
    assert "403" in log.read_text(), "the log keeps the whole error"


def _hold_warehouse(path: Path) -> subprocess.Popen[str]:
    """Another process writing: it holds DuckDB's lock on the file until it is killed."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('held', flush=True); time.sleep(600)",
            str(path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    return holder


def test_a_run_waits_for_the_warehouse_saying_whom_it_waits_for_then_goes_on(emu, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    holder = _hold_warehouse(home / "warehouse.duckdb")
    env = _env(home, **environ_for(emu), WAREHOUSE_LOCK_WAIT="300", PYTHONUNBUFFERED="1")
    run = subprocess.Popen([CLI, *_ONE_DAY], env=env, cwd=tmp_path, stdout=subprocess.PIPE, text=True)
    try:
        assert run.stdout is not None
        seen = []
        for line in run.stdout:  # ends at the latest when the run gives up (300 s)
            seen.append(line)
            if "waiting for the warehouse" in line:
                break
        holder.kill()  # the other process ends: the run goes on
        holder.wait()
        seen.append(run.stdout.read())
        assert run.wait(timeout=600) == 0
    finally:
        holder.kill()
        run.kill()
    output = "".join(seen)
    assert f"waiting for the warehouse: process {holder.pid} (python" in output, output
    assert "giving up after 300 s" in output
    assert "got the warehouse after waiting" in output and f"{_DAY} … ok" in output


def test_a_run_that_waits_too_long_for_the_warehouse_fails_in_one_line_naming_the_holder(emu, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    holder = _hold_warehouse(home / "warehouse.duckdb")
    started = time.monotonic()
    try:
        done = _run(_ONE_DAY, _env(home, **environ_for(emu), WAREHOUSE_LOCK_WAIT="2"), cwd=tmp_path)
    finally:
        holder.kill()
        holder.wait()
    assert done.returncode == 1
    (line,) = done.stderr.strip().splitlines()
    assert f"held by process {holder.pid}" in line and "WAREHOUSE_LOCK_WAIT=2" in line, line
    print(f"gave up after {time.monotonic() - started:.1f} s")
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as conn:
        assert conn.execute("SELECT count(*) FROM duckdb_tables()").fetchone() == (0,), "nothing was written"
