"""billing.team_chargeback: bi.chargeback_by_team's rows as each publish computes them, which the
serving database's view reads instead of allocating every day's bill again on each read.

A day's chargeback (bi.chargeback_between, sql/views/create_chargeback_by_team.sql) reads that
day's rows of DAY_INPUTS and, besides them, only its basis, from WHOLE_INPUTS: the newest snapshot
of cost centers and their resources, the teams a Team resource names by latest slug, and the
views' definitions (sql/billing/select_chargeback_basis.sql). So
before a publish writes the lake, the days a writer marked changed in one of DAY_INPUTS since the
last publish are computed again, and every day when the basis is not the one recorded with them,
or the publish writes everything (`full`, or after a migration). The days written are marked for
the lake like any writer's, in the same transaction.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import date, timedelta

import duckdb

from pipelines._paths import SQL_DIR
from pipelines.warehouse.catalog import TABLES
from pipelines.warehouse.sql import rollback, run_sql

__all__ = ["DAY_INPUTS", "WHOLE_INPUTS", "refresh_chargeback"]


def _named(path: str) -> set[str]:
    """The schema.table names an SQL file's statements (not its comments) hold."""
    text = re.sub(r"--[^\n]*", "", (SQL_DIR / path).read_text())
    return set(re.findall(r"\b[a-z_]+\.[a-z_]+\b", text))


# What the definition reads, from the catalog: a table partitioned by the day is read for that
# day's rows (DAY_INPUTS), any other whole, which the basis must hold (WHOLE_INPUTS).
_READ = _named("views/create_chargeback_by_team.sql")
DAY_INPUTS = tuple(t.name for t in TABLES if t.name in _READ and t.partition == "day")
WHOLE_INPUTS = tuple(t.name for t in TABLES if t.name in _READ and t.partition != "day")
_TABLE = "billing.team_chargeback"
# Changed days this close are computed as one span: each span costs its planning and scans, the
# days between them little (a billing month marks every day of it anyway). A span is at most
# _SPAN_DAYS long: the publish's memory limit (256 MB) holds a few weeks' allocation, not a
# year's (a year of 10,000 + 15,000 users in one span ran out of it).
_SPAN_GAP = 7
_SPAN_DAYS = 14


def refresh_chargeback(conn: duckdb.DuckDBPyConnection, *, full: bool) -> None:
    """Compute billing.team_chargeback again for the days whose inputs changed (every day when
    `full`, after a migration or when the basis changed), in one transaction."""
    conn.begin()
    try:
        ((basis,),) = run_sql(conn, "billing/select_chargeback_basis.sql")
        changes = run_sql(conn, "billing/select_chargeback_changes.sql", tables=list(DAY_INPUTS))
        every_day = (
            full
            or any(everything for everything, _ in changes)
            or run_sql(conn, "billing/select_recorded_chargeback_basis.sql") != [(basis,)]
        )
        if every_day:
            ((first, last),) = run_sql(conn, "billing/select_chargeback_span.sql")
            days = [] if first is None else [first + timedelta(days=n) for n in range((last - first).days + 1)]
        else:
            days = [day for _, day in changes if day is not None]
        for start, end in _spans(days):
            run_sql(conn, "billing/refresh_team_chargeback.sql", start_day=start, end_day=end)
            run_sql(conn, "warehouse/mark_lake_changes.sql", tables=[_TABLE], start_day=start, end_day=end)
        run_sql(conn, "billing/record_chargeback_basis.sql", basis=basis)
        conn.commit()
    except BaseException:
        rollback(conn)
        raise


def _spans(days: Iterable[date]) -> list[tuple[date, date]]:
    """The days as spans (first, last) of at most _SPAN_DAYS days, days at most _SPAN_GAP apart in one."""
    spans: list[tuple[date, date]] = []
    for day in sorted(set(days)):
        if spans and day - spans[-1][1] <= timedelta(days=_SPAN_GAP) and (day - spans[-1][0]).days < _SPAN_DAYS:
            spans[-1] = (spans[-1][0], day)
        else:
            spans.append((day, day))
    return spans
