"""Staging of a report's rows and the one-transaction replace of the days it covers."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import duckdb
import polars as pl

from pipelines.warehouse._sql import run_sql

STAGED_TABLES = ("daily_totals", "user_daily_totals", "breakdowns", "agent_activity", "quarantine", "report_files")


@dataclass(frozen=True)
class ReportKey:
    """What a report replaces: its scope, level and the days it covers."""

    scope: str
    scope_name: str
    report_kind: str
    level: str
    start_day: date
    end_day: date


def open_stage(conn: duckdb.DuckDBPyConnection) -> None:
    """(Re)create this connection's empty staging tables."""
    run_sql(conn, "warehouse/create_stage_tables.sql")


def stage_frame(conn: duckdb.DuckDBPyConnection, *, table: str, frame: pl.DataFrame, file_index: int) -> None:
    """Append a frame to a staging table through DuckDB's Arrow scan (no Python rows)."""
    if table not in STAGED_TABLES:
        raise ValueError(f"no staging table for {table!r}")
    if frame.height == 0:
        return
    conn.register("_stage_batch", frame.to_arrow())
    try:
        run_sql(conn, f"warehouse/stage_{table}.sql", file_index=file_index)
    finally:
        conn.unregister("_stage_batch")


def discard_staged_file(conn: duckdb.DuckDBPyConnection, *, file_index: int) -> None:
    """Forget what was staged from one file (it is being fetched again)."""
    run_sql(conn, "warehouse/discard_staged_file.sql", file_index=file_index)


def replace_report(conn: duckdb.DuckDBPyConnection, *, key: ReportKey) -> None:
    """Move the staged rows into place in ONE transaction: delete the report's days, insert,
    record its files, recompute the agent dimensions. Either all of it lands or none."""
    params = {
        "scope": key.scope,
        "scope_name": key.scope_name,
        "report_kind": key.report_kind,
        "level": key.level,
        "start_day": key.start_day,
        "end_day": key.end_day,
    }
    conn.execute("BEGIN TRANSACTION")
    try:
        run_sql(conn, "warehouse/replace_report.sql", **params)
        run_sql(conn, "warehouse/refresh_agent_dimensions.sql")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    run_sql(conn, "warehouse/drop_stage_tables.sql")
