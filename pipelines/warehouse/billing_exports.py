"""An enterprise's usage report export of one month lands in ONE transaction replacing the
month (docs/billing.md): billing.user_usage's rows of the month (its catalog `replaces` rule),
the export's archived files (raw.report_files) and its lines that could not land
(raw.quarantine, those a person cleared kept), and a billing.fetches row for the month (endpoint
`user_usage`: whether the month was closed, so a closed month is never exported again).

An export names people by their username only (its second column): `export_line_pattern` finds a
person's lines in quarantine, `export_line_names` in an archived file (erasure, and a landing
dropping erased people).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

import duckdb
import polars as pl

from pipelines.warehouse.catalog import table
from pipelines.warehouse.replace import LANDINGS, REPLACES, _run_on_batch
from pipelines.warehouse.sql import rollback, run_sql

__all__ = [
    "EXPORT_KIND",
    "EXPORT_LEVEL",
    "USER_USAGE",
    "ExportMonth",
    "export_line_names",
    "export_line_pattern",
    "land_export_month",
]

USER_USAGE = "billing.user_usage"
# An export's place among the raw tables' reports (archived under RAW_DIR/.../billing-export/):
# a level of its own, so no report's landing, coverage or quarantine key meets it; not
# "aggregate", so erasure and retention treat its files as naming people.
EXPORT_KIND = "export"
EXPORT_LEVEL = "billing"
_FETCHES = "billing.fetches"


@dataclass(frozen=True)
class ExportMonth:
    scope_name: str  # the enterprise
    start: date  # the month's first day
    end: date  # its last day
    rows: pl.DataFrame  # billing.user_usage
    files: pl.DataFrame  # raw.report_files
    quarantine: pl.DataFrame  # raw.quarantine
    fetches: pl.DataFrame  # billing.fetches


def land_export_month(conn: duckdb.DuckDBPyConnection, month: ExportMonth) -> None:
    declared, fetches = table(USER_USAGE), table(_FETCHES)
    assert declared.landing and declared.replaces and fetches.landing
    span: dict[str, Any] = {
        "scope": "enterprise",
        "scope_name": month.scope_name,
        "start_day": month.start,
        "end_day": month.end,
    }
    conn.begin()
    try:
        run_sql(conn, REPLACES[declared.replaces], identifiers={"table": USER_USAGE}, **span)
        run_sql(conn, "billing/delete_export_month.sql", report_kind=EXPORT_KIND, level=EXPORT_LEVEL, **span)
        for name, frame, landing in (
            (USER_USAGE, month.rows, declared.landing),
            ("raw.report_files", month.files, "rows"),
            ("raw.quarantine", month.quarantine, "rows"),
            (_FETCHES, month.fetches, fetches.landing),
        ):
            if frame.height:
                _run_on_batch(conn, LANDINGS[landing], frame.to_arrow(), identifiers={"table": name})
        run_sql(
            conn,
            "warehouse/mark_lake_changes.sql",
            tables=[USER_USAGE, _FETCHES],
            start_day=month.start,
            end_day=month.end,
        )
        conn.commit()
    except BaseException:
        rollback(conn)
        raise


def export_line_pattern(login: str) -> str:
    """An RE2 and Python pattern of an export line whose username (the second field) is `login`."""
    return rf'(?i)^[^,]*,"?{re.escape(login)}"?,'


def export_line_names(line: bytes, is_login: Callable[[str], bool]) -> bool:
    """Whether an export's line (not its header) names the person `is_login(word)` says is theirs."""
    if not line[:1].isdigit():  # a line starts with its date; the header and report lines do not
        return False
    try:
        fields = next(csv.reader([line.decode(errors="replace")]))
    except (csv.Error, StopIteration):
        return False
    return len(fields) > 1 and is_login(fields[1].strip())
