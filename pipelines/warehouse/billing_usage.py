"""A scope's billed usage of one table and month lands in ONE transaction replacing the month
(docs/billing.md): the table's rows of the scope's month go (its catalog `replaces` rule), the
fetched rows come in (its `landing`), with one billing.fetches row per day fetched and the
month's drift in raw.field_drift (level `billing`, report kind the table); all or nothing, so a
re-fetched open month replaces its rows and a re-run changes nothing.

Which months are done is read here too: a month of a table whose every day fetched has a fetch
made after the month closed is never fetched again; and the newest day the service is known to
have, for a run whose answers say no date.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import cast

import duckdb
import polars as pl

from pipelines.warehouse.catalog import table
from pipelines.warehouse.replace import LANDINGS, REPLACES, _run_on_batch
from pipelines.warehouse.sql import rollback, run_sql

__all__ = [
    "BILLING_LEVEL",
    "BillingMonth",
    "closed_months",
    "land_billing_month",
    "newest_known_day",
    "record_denied",
]

# raw.field_drift's level for what billing answers carried beyond the declarations.
BILLING_LEVEL = "billing"
_FETCHES = "billing.fetches"
_DRIFT = "raw.field_drift"


@dataclass(frozen=True)
class BillingMonth:
    """What one table's fetch of a scope's month brings."""

    scope: str
    scope_name: str
    table: str  # billing.<name>
    start: date  # the month's first day
    end: date  # its last day
    rows: pl.DataFrame
    fetches: pl.DataFrame  # billing.fetches rows, a day each
    drift: pl.DataFrame  # raw.field_drift rows


def land_billing_month(conn: duckdb.DuckDBPyConnection, month: BillingMonth) -> None:
    declared = table(month.table)
    if declared.landing is None or declared.replaces is None:
        raise ValueError(f"{month.table} is not a billing usage table")
    fetches = table(_FETCHES)
    assert fetches.landing is not None
    short = month.table.split(".", 1)[1]
    params = {"scope": month.scope, "scope_name": month.scope_name, "start_day": month.start, "end_day": month.end}
    conn.begin()
    try:
        run_sql(conn, REPLACES[declared.replaces], identifiers={"table": month.table}, **params)
        _run_on_batch(conn, LANDINGS[declared.landing], month.rows.to_arrow(), identifiers={"table": month.table})
        _run_on_batch(conn, LANDINGS[fetches.landing], month.fetches.to_arrow(), identifiers={"table": _FETCHES})
        run_sql(
            conn,
            REPLACES["report-days"],
            identifiers={"table": _DRIFT},
            level=BILLING_LEVEL,
            report_kind=short,
            **params,
        )
        if month.drift.height:
            _run_on_batch(conn, LANDINGS["rows"], month.drift.to_arrow(), identifiers={"table": _DRIFT})
        changed = [month.table, _FETCHES, _DRIFT]
        run_sql(conn, "warehouse/mark_lake_changes.sql", tables=changed, start_day=month.start, end_day=month.end)
        conn.commit()
    except BaseException:
        rollback(conn)
        raise


def record_denied(conn: duckdb.DuckDBPyConnection, rows: pl.DataFrame) -> None:
    """billing.fetches rows saying the token could not read a scope's billing."""
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


def closed_months(conn: duckdb.DuckDBPyConnection, *, scope: str, scope_name: str) -> set[tuple[str, date]]:
    """(endpoint, month's first day) of every month of the scope landed with the month closed."""
    return {
        (endpoint, month)
        for endpoint, month in run_sql(conn, "billing/select_closed_months.sql", scope=scope, scope_name=scope_name)
    }


def newest_known_day(conn: duckdb.DuckDBPyConnection) -> date | None:
    """The newest day the service answered billing for, or served a usage report of; None if none."""
    ((day,),) = run_sql(conn, "billing/select_newest_known_day.sql")
    return cast(date | None, day)
