"""Rows committed since the last checkpoint stay in memory, where DuckDB cannot spill them: a
backfill's landings, one after another on one connection, would fill the landing's memory limit
with earlier reports' rows. A commit that leaves more than the limit's share held checkpoints."""

from __future__ import annotations

from datetime import date, timedelta

import duckdb
import polars as pl

from pipelines.service import ReportRef
from pipelines.warehouse import ReportSlice, land_report
from pipelines.warehouse.held import HELD_LIMIT, checkpoint_when_held
from pipelines.warehouse.sql import run_sql

_FIRST = date(2026, 11, 1)
_USERS = 20_000


def _held(conn: duckdb.DuckDBPyConnection) -> int:
    ((held,),) = run_sql(conn, "warehouse/select_held_memory.sql")
    return int(held)


def _land_day(conn: duckdb.DuckDBPyConnection, day: date) -> None:
    totals = pl.DataFrame(
        {
            "scope": "organization",
            "scope_name": "acme",
            "day": day,
            "report_kind": "1-day",
            "user_id": range(_USERS),
            "user_initiated_interaction_count": range(_USERS),
            "agent_breakdown_present": False,
            "extra": None,
            "_line": range(_USERS),
        },
        schema_overrides={"user_id": pl.Int64(), "extra": pl.String(), "_line": pl.Int64()},
    )
    with land_report(conn, ReportSlice(ReportRef("organization", "acme", "1-day", "user", day), day, day)) as landing:
        landing.insert(table="user_daily_totals", frame=totals, file_index=0)


def test_committed_rows_are_checkpointed_once_they_hold_more_than_the_limit(conn: duckdb.DuckDBPyConnection) -> None:
    conn.execute("SET checkpoint_threshold = '1GB'")
    _land_day(conn, _FIRST)
    held = _held(conn)
    assert held > 0, "a commit leaves its rows in memory until a checkpoint"
    assert not checkpoint_when_held(conn, limit=held + 1)
    assert _held(conn) == held, "under the limit, nothing is written"
    assert checkpoint_when_held(conn, limit=held - 1)
    assert _held(conn) < held
    # What stays loaded after the checkpoint is not counted again: the next landing starts at zero.
    assert not checkpoint_when_held(conn, limit=0)


def test_a_backfill_of_many_days_holds_no_more_than_the_limit_after_each_landing(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    # Without the checkpoint each landed day adds its rows to what stays in memory (the landing
    # turns DuckDB's own checkpoint by WAL size off: sql/ingest/limit_resources.sql).
    conn.execute("SET checkpoint_threshold = '1GB'")
    for n in range(8):
        _land_day(conn, _FIRST + timedelta(days=n))
    assert _held(conn) <= HELD_LIMIT
    assert conn.execute("SELECT count(*) FROM core.user_daily_totals").fetchall() == [(8 * _USERS,)]
