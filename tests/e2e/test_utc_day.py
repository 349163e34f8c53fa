"""The pipeline's day is the UTC day whatever the host's time zone: the default `run` and the
demo, under a TZ whose date is not UTC's at the moment the test runs."""

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb

from emulator import EmulatorConfig, running_emulator
from tests._emulator import environ_for

CLI = str(Path(sys.executable).parent / "metrics-etl")


def _zone_on_another_day() -> str:
    """A zone whose date differs from UTC's now: UTC+14 from 10:00 UTC, UTC-12 before 12:00 UTC."""
    return "Pacific/Kiritimati" if datetime.now(UTC).hour >= 12 else "Etc/GMT+12"


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SERVICE_", "WAREHOUSE_", "METRICS_", "DAGSTER_"))}
    env |= {
        "METRICS_HOME": str(tmp_path / "home"),
        "XDG_DATA_HOME": str(tmp_path / "share"),
        "TZ": _zone_on_another_day(),
    }
    return env | extra


def test_the_zone_differs_from_utc_today():
    zone = _zone_on_another_day()
    local = subprocess.run(["date", "+%F"], env={"TZ": zone}, capture_output=True, text=True, check=True)
    assert local.stdout.strip() != datetime.now(UTC).date().isoformat()


def test_the_default_run_takes_utc_yesterday_and_todays_utc_snapshot(tmp_path):
    today = datetime.now(UTC).date()
    with running_emulator(EmulatorConfig(seed=31, users=6, repos=1, issues_per_repo=2, history_days=30)) as emu:
        done = subprocess.run(
            [CLI, "run"],
            env=_env(tmp_path, **environ_for(emu)),
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=600,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"snapshot {today}" in done.stdout, done.stdout[-2000:]
    with duckdb.connect(str(tmp_path / "home" / "warehouse.duckdb"), read_only=True) as conn:
        snapshot_days = conn.execute("SELECT DISTINCT snapshot_day FROM snapshots.repositories").fetchall()
        applied = conn.execute("SELECT max(applied_at) FROM meta.schema_migrations").fetchone()
    assert snapshot_days == [(today,)]
    # Timestamps DuckDB stamps (now()) are UTC too, not the host's wall clock.
    assert applied is not None and abs(applied[0] - datetime.now(UTC).replace(tzinfo=None)) < timedelta(hours=1)


def test_the_demo_ends_its_window_on_utc_yesterday(tmp_path):
    yesterday = datetime.now(UTC).date() - timedelta(days=1)
    done = subprocess.run(
        [CLI, "demo", "--days", "2", "--users", "12", "--repos", "1"],
        env=_env(tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"usage reports, {yesterday - timedelta(days=1)} to {yesterday} (2 days)" in done.stdout, done.stdout[:2000]
