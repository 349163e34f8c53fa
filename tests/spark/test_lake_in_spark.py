"""A distributed engine reads the lake: the Spark example of docs/bi.md, run over a lake the
pipeline built from the emulator, gives the per-agent totals of bi.agent_usage_periods' last
28-day period. `make test-spark` runs it; `make test` leaves tests/spark out (pyspark is not in
the default install), and here a missing pyspark or Java is a failure, never a skip."""

from __future__ import annotations

import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb
import pyspark  # noqa: F401  (imported so that a venv without the spark group fails here, not later)
import pytest

from emulator import EmulatorConfig, running_emulator
from tests.e2e.chaos import Emulated, pipeline_env
from tests.integration.bi._docs import period_0_totals, python_blocks, run_block

CLI = str(Path(sys.executable).parent / "metrics-etl")
HISTORY_DAYS = 33  # more than one 28-day period, so the period's first day is a real boundary


@pytest.mark.timeout(1200)  # a month through Dagster and a JVM's start on a shared 2-core machine
def test_spark_over_the_lake_gives_bi_agent_usage_periods_last_28_days(tmp_path):
    assert shutil.which("java"), "Spark needs Java 17 or later (Debian: apt-get install openjdk-17-jre-headless)"
    (block,) = [b for b in python_blocks() if b.runs_in == "tests/spark/test_lake_in_spark.py"]
    # Final days only, so the reports are the platform's last word.
    last = datetime.now(UTC).date() - timedelta(days=5)
    first = last - timedelta(days=HISTORY_DAYS - 1)
    place = Emulated(tmp_path / "home")  # the docs' paths, from the data home: lake/ and serving.duckdb
    with running_emulator(EmulatorConfig(seed=41, users=40, repos=1, issues_per_repo=2)) as emu:
        done = subprocess.run(
            [CLI, "run", "--from", first.isoformat(), "--to", last.isoformat(), "--no-latest", "--no-snapshots"],
            env=pipeline_env(emu, place, first_day=first.isoformat()),
            cwd=place.root,
            capture_output=True,
            text=True,
            timeout=1000,
        )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

    serving = place.root / "serving.duckdb"
    with duckdb.connect(str(serving), read_only=True) as conn:
        assert conn.execute("SELECT count(DISTINCT day) FROM core.daily_totals").fetchone() == (HISTORY_DAYS,)
        assert conn.execute("SELECT count(*) FROM bi.agent_usage_periods WHERE period_index = 1").fetchone()[0] > 0
    want = period_0_totals(serving)
    assert {scope for scope, _, _ in want} == {"organization", "enterprise"}
    assert run_block(block, cwd=place.root) == want
