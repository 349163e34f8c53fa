"""A restored warehouse and a damaged lake, as an operator meets them: the next publish serves
what the warehouse holds, says so in one line, and `metrics-etl publish` is there to ask for it."""

import os
import shutil
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import duckdb
import pytest

from emulator import EmulatorConfig, running_emulator
from tests._emulator import environ_for

CLI = str(Path(sys.executable).parent / "metrics-etl")
_TODAY = datetime.now(UTC).date()
DAYS = [_TODAY - timedelta(days=n) for n in range(12, 6, -1)]  # six days, oldest first


def _env(home: Path, **service: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SERVICE_", "WAREHOUSE_", "METRICS_", "DAGSTER_"))}
    return env | {"METRICS_HOME": str(home), "METRICS_START_DAY": DAYS[0].isoformat()} | service


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CLI, *args], env=env, capture_output=True, text=True, timeout=600)


def _run(env: dict[str, str], first: date, last: date) -> subprocess.CompletedProcess[str]:
    done = _cli(env, "run", "--from", first.isoformat(), "--to", last.isoformat(), "--no-latest", "--no-snapshots")
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def _days(path: Path) -> list[date]:
    with duckdb.connect(str(path), read_only=True) as conn:
        return [row[0] for row in conn.execute("SELECT DISTINCT day FROM core.daily_totals ORDER BY 1").fetchall()]


@pytest.fixture(scope="module")
def emu():
    with running_emulator(EmulatorConfig(seed=33, users=10, repos=1, history_days=30)) as emulator:
        yield emulator


def test_a_restored_backup_is_served_as_it_is_after_the_next_run(emu, tmp_path):
    home = tmp_path / "home"
    env = _env(home, **environ_for(emu))
    _run(env, DAYS[0], DAYS[1])
    backup = _cli(env, "backup", str(tmp_path / "backups"))
    assert backup.returncode == 0, backup.stderr
    _run(env, DAYS[2], DAYS[3])  # two more days, then the backup copied back
    (copy,) = (tmp_path / "backups").glob("warehouse-*.duckdb")
    shutil.copyfile(copy, home / "warehouse.duckdb")
    assert _cli(env, "migrate").returncode == 0
    done = _run(env, DAYS[4], DAYS[4])
    assert _days(home / "warehouse.duckdb") == _days(home / "serving.duckdb") == [DAYS[0], DAYS[1], DAYS[4]]
    (warning,) = [line for line in done.stdout.splitlines() if line.strip().startswith("lake: ")]
    assert "restored or replaced" in warning, warning


def test_a_damaged_partition_fails_reads_in_one_line_until_a_publish_writes_it_again(emu, tmp_path):
    home = tmp_path / "home"
    env = _env(home, **environ_for(emu))
    _run(env, DAYS[0], DAYS[2])
    # In the newest version of the lake, in place (the versions linking it share the damage).
    # core.daily_totals is small: one file a month.
    month = f"month={DAYS[1].replace(day=1)}"
    damaged = (home / "lake" / "current").resolve() / "core.daily_totals" / month / "data.parquet"
    damaged.write_bytes(b"PAR1 not any more")
    for args in (
        ["report", "--out", str(tmp_path / "r.html")],
        ["export", "--view", "assistant_activity_daily", "--format", "csv", "--out", str(tmp_path / "x.csv")],
    ):
        failed = _cli(env, *args)
        assert failed.returncode == 1, failed.stdout
        (line,) = failed.stderr.strip().splitlines()
        assert str(damaged) in line and "metrics-etl publish" in line, line
    repaired = _cli(env, "publish")
    assert repaired.returncode == 0, repaired.stderr[-3000:]
    (warning,) = [line for line in repaired.stdout.splitlines() if line.strip().startswith("lake: ")]
    assert f"core.daily_totals/{month}/data.parquet" in warning
    assert _days(home / "serving.duckdb") == DAYS[0:3]
    assert _cli(env, "report", "--out", str(tmp_path / "r.html")).returncode == 0
    full = _cli(env, "publish", "--full")
    assert full.returncode == 0, full.stderr[-3000:]
    assert not [line for line in full.stdout.splitlines() if line.strip().startswith("lake: ")], full.stdout
