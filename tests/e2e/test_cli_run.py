"""`metrics-etl run` as a user runs it: a subprocess, configured by environment variables."""

import os
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import duckdb

from emulator import EmulatorConfig, running_emulator

CLI = str(Path(sys.executable).parent / "metrics-etl")


def _env(creds: dict, tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SERVICE_", "WAREHOUSE_", "METRICS_"))}
    env.update(
        SERVICE_BASE_URL=creds["base_url"], SERVICE_TOKEN=creds["token"], SERVICE_ORG=creds["org"],
        WAREHOUSE_PATH=str(tmp_path / "w.duckdb"), RAW_DIR=str(tmp_path / "raw"),
        SERVING_PATH=str(tmp_path / "serving.duckdb"), SERVICE_ETAG_CACHE=str(tmp_path / "etag.sqlite3"),
        **extra,
    )
    return env


def test_run_lands_a_range_with_progress_and_a_summary(tmp_path):
    first, last = date.today() - timedelta(days=9), date.today() - timedelta(days=5)
    with running_emulator(EmulatorConfig(seed=21, users=12, repos=2, issues_per_repo=3)) as emu:
        done = subprocess.run(
            [CLI, "run", "--from", first.isoformat(), "--to", last.isoformat()],
            env=_env(emu.credentials, tmp_path), cwd=tmp_path, capture_output=True, text=True, timeout=600,
        )
    assert done.returncode == 0, done.stderr[-3000:]
    assert f"{first} .. {last} … ok" in done.stdout
    assert "latest … ok" in done.stdout and "snapshot" in done.stdout
    assert "core.daily_totals" in done.stdout and "third-party agents" in done.stdout
    with duckdb.connect(str(tmp_path / "serving.duckdb"), read_only=True) as conn:
        days = conn.execute("SELECT count(DISTINCT day) FROM core.daily_totals WHERE day BETWEEN ? AND ?", [first, last]).fetchone()[0]
    assert days == 5


def test_run_without_permission_says_so_in_one_line(tmp_path):
    with running_emulator(EmulatorConfig(seed=22, users=4, repos=1)) as emu:
        creds = dict(emu.credentials, token=emu.credentials["limited_token"])
        done = subprocess.run(
            [CLI, "run", "--day", (date.today() - timedelta(days=5)).isoformat(), "--no-latest", "--no-snapshots"],
            env=_env(creds, tmp_path), cwd=tmp_path, capture_output=True, text=True, timeout=600,
        )
    assert done.returncode == 1
    (message,) = done.stderr.strip().splitlines()  # one line, no traceback
    assert message.startswith("metrics-etl run:") and "403" in message and "permission" in message.lower()
    assert creds["limited_token"] not in done.stderr + done.stdout
