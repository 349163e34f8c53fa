"""A vendor's fetch of an endpoint lands in ONE transaction replacing what it covers
(docs/vendors.md): each table's rows of its days (the catalog's `replaces`, on the table's
partition day: a usage day, the spend's billing cycle, the members' snapshot day), the fetch's
archived files (raw.report_files) and lines that could not land (raw.quarantine, those a person
cleared kept), the drift of its days (raw.field_drift) and a vendors.fetches row per day; all or
nothing, so a day fetched again replaces its rows and a re-run changes nothing.

The raw tables hold a vendor's files under scope `vendor`, the vendor's name and level `vendor`:
no report's landing, coverage or quarantine key meets them, and erasure and retention reach them
as they reach a user-level report's (pipelines/warehouse/erasure_vendors.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

import duckdb
import polars as pl

from pipelines.warehouse.catalog import table
from pipelines.warehouse.erasure_vendors import VENDOR_LEVEL
from pipelines.warehouse.replace import LANDINGS, REPLACES, _run_on_batch
from pipelines.warehouse.sql import rollback, run_sql

__all__ = ["VENDOR_LEVEL", "VENDOR_SCOPE", "VendorLanding", "final_days", "land_vendor", "record_refusal"]

VENDOR_SCOPE = "vendor"
_FETCHES = "vendors.fetches"
_DRIFT = "raw.field_drift"


@dataclass(frozen=True)
class VendorLanding:
    vendor: str
    endpoint: str
    start: date  # the days the fetch covered
    end: date
    # table -> (its rows, the first and last of its partition days they replace)
    tables: dict[str, tuple[pl.DataFrame, date, date]]
    files: pl.DataFrame  # raw.report_files
    quarantine: pl.DataFrame  # raw.quarantine
    drift: pl.DataFrame  # raw.field_drift
    fetches: pl.DataFrame  # vendors.fetches


def land_vendor(conn: duckdb.DuckDBPyConnection, landing: VendorLanding) -> None:
    report: dict[str, Any] = {
        "scope": VENDOR_SCOPE,
        "scope_name": landing.vendor,
        "report_kind": landing.endpoint,
        "level": VENDOR_LEVEL,
        "start_day": landing.start,
        "end_day": landing.end,
    }
    fetches = table(_FETCHES)
    assert fetches.landing is not None
    conn.begin()
    try:
        for name, (frame, first, last) in landing.tables.items():
            declared = table(name)
            assert declared.replaces is not None and declared.landing is not None and declared.partition
            days: dict[str, Any] = {"start_day": first, "end_day": last}
            run_sql(conn, REPLACES[declared.replaces], identifiers={"table": name, "day": declared.partition}, **days)
            if frame.height:
                _run_on_batch(conn, LANDINGS[declared.landing], frame.to_arrow(), identifiers={"table": name})
            run_sql(conn, "warehouse/mark_lake_changes.sql", tables=[name], **days)
        run_sql(conn, "vendors/delete_files.sql", **report)
        run_sql(conn, REPLACES["report-days"], identifiers={"table": _DRIFT}, **report)
        for name, frame, landed in (
            ("raw.report_files", landing.files, "rows"),
            ("raw.quarantine", landing.quarantine, "rows"),
            (_DRIFT, landing.drift, "rows"),
            (_FETCHES, landing.fetches, fetches.landing),
        ):
            if frame.height:
                _run_on_batch(conn, LANDINGS[landed], frame.to_arrow(), identifiers={"table": name})
        run_sql(conn, "warehouse/keep_cleared_quarantine.sql", **report)
        span: dict[str, Any] = {"start_day": landing.start, "end_day": landing.end}
        run_sql(conn, "warehouse/mark_lake_changes.sql", tables=[_FETCHES, _DRIFT], **span)
        conn.commit()
    except BaseException:
        rollback(conn)
        raise


def final_days(conn: duckdb.DuckDBPyConnection, *, vendor: str, endpoint: str, start: date, end: date) -> set[date]:
    """The days of `start..end` the endpoint has landed final."""
    found = run_sql(
        conn, "vendors/select_final_days.sql", vendor=vendor, endpoint=endpoint, start_day=start, end_day=end
    )
    return {day for (day,) in found}


def record_refusal(conn: duckdb.DuckDBPyConnection, rows: pl.DataFrame) -> None:
    """vendors.fetches rows saying a vendor could not be read (its key refused, or it failed)."""
    fetches = table(_FETCHES)
    assert fetches.landing is not None
    conn.begin()
    try:
        _run_on_batch(conn, LANDINGS[fetches.landing], rows.to_arrow(), identifiers={"table": _FETCHES})
        day = rows["day"].min()
        run_sql(conn, "warehouse/mark_lake_changes.sql", tables=[_FETCHES], start_day=day, end_day=day)
        conn.commit()
    except BaseException:
        rollback(conn)
        raise
