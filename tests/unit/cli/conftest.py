"""The serving database `metrics-etl sql` tests open: shaped like the real one (views only, reading
Parquet of the lake by absolute path, a hive-partitioned table under `lake/current/`), in a data
home with the warehouse and the token beside it, and a temporary directory of its own."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from pipelines.cli import _sql_bounds

LAKE_TABLE = "current/core.user_daily_totals"  # the table the PARTITION_BY attack emptied


@pytest.fixture
def serving(tmp_path: Path) -> Path:
    lake = tmp_path / "lake" / "agents.parquet"
    lake.parent.mkdir()
    totals = tmp_path / "lake" / LAKE_TABLE
    totals.parent.mkdir()
    path = tmp_path / "serving.duckdb"
    with duckdb.connect(str(path)) as conn:
        conn.execute(
            f"COPY (SELECT * FROM (VALUES ('a-1', 'Alpha', 9), ('b-2', 'Bravo', NULL), ('c-3', 'Charlie', 3)) "
            f"AS t(agent_id, agent_name, job_starts)) TO '{lake}' (FORMAT parquet)"
        )
        conn.execute(
            f"COPY (SELECT DATE '2026-11-01' + CAST(range // 60 AS INTEGER) AS day, range AS user_id, "
            f"range % 7 AS daily_active_users "
            f"FROM range(120)) TO '{totals}' (FORMAT parquet, PARTITION_BY (day), FILENAME_PATTERN 'data')"
        )
        conn.execute("CREATE SCHEMA bi")
        conn.execute("CREATE SCHEMA core")
        conn.execute(f"CREATE VIEW bi.agents AS SELECT * FROM read_parquet('{lake}')")
        conn.execute("COMMENT ON VIEW bi.agents IS 'Each agent app: its job starts.'")
        conn.execute(
            f"CREATE VIEW core.user_daily_totals AS SELECT * FROM read_parquet('{totals}/*/*.parquet', "
            "hive_partitioning = true)"
        )
    return path


@pytest.fixture
def runner(serving: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    """A runner in a directory of its own (not the database's), SERVING_PATH naming the database,
    and a temporary directory and a HOME inside tmp_path (the shell's spill goes there)."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    for name in list(os.environ):
        if name.startswith(("SERVICE_", "WAREHOUSE_", "SERVING_", "METRICS_", "LAKE_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("SERVING_PATH", str(serving))
    monkeypatch.setenv("LAKE_PATH", str(tmp_path / "lake"))
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setenv("TMPDIR", str(temp))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))  # tempfile read TMPDIR once already
    user_home = tmp_path / "user-home"  # where DuckDB would keep extensions and secrets (~/.duckdb)
    user_home.mkdir()
    monkeypatch.setenv("HOME", str(user_home))
    # In-process, the shell's hard stop (os._exit when DuckDB is slow to heed an interrupt) would
    # end the test runner itself: here DuckDB may take its time; test_sql_time_limit_holds.py
    # proves the hard stop in processes of their own.
    monkeypatch.setattr(_sql_bounds, "_GRACE", 120.0)
    return CliRunner()


@pytest.fixture
def home(tmp_path: Path, serving: Path) -> Path:
    """A data home like a deployment's: the warehouse and the token beside the lake."""
    with duckdb.connect(str(tmp_path / "warehouse.duckdb")) as conn:
        conn.execute("CREATE TABLE daily_totals AS SELECT 1 AS n")
    (tmp_path / "token").write_text("tok-secret-value")
    return tmp_path
