"""The daily rollups the bi views read instead of user rows (catalog writer "rollup").

Each rollup's rows for a scope's days are computed by `sql/rollups/<table>.sql` from the facts,
inside the landing transaction that changed those days, and its lake partitions are marked for
the next publish: a daily run refreshes one day (and the days after it that depend on it, the
catalog's `trail`: 27 for the reach tables, whose gaps it can change, 54 for the team windows
over them), never the history. When the files of sql/rollups/ change (their
checksum, kept in meta.rollup_definitions), `migrate` rebuilds every rollup from the facts,
after creating the rules the rollups call (`sql/rollups/_*.sql`: who counts as active).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, timedelta
from typing import Any

import duckdb

from pipelines._paths import SQL_DIR
from pipelines.warehouse.catalog import tables
from pipelines.warehouse.sql import rollback, run_sql

__all__ = [
    "ROLLUPS",
    "end_of_landing_memory",
    "rebuild_rollups",
    "refresh_rollups",
    "rollups_stale",
    "size_to_set_back",
]

ROLLUPS = tuple(tables(writer="rollup"))
_RULES = tuple(sorted(p.name for p in (SQL_DIR / "rollups").glob("_*.sql")))


# The rollups' joins and windows over a scope's days (and 27 before them) run at the end of a
# landing, whose memory limit (64 MB, sql/ingest/limit_resources.sql) is sized for its batches
# and by then holds the transaction's rows: the demo's week of reports ran out of it there, in
# the rollups and then in the checks after them.
_ROLLUP_MEMORY = 256 * 2**20
_UNITS = {"bytes": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50, "EiB": 2**60}


def _bytes(setting: str) -> float:
    """DuckDB's memory_limit as it shows it ('61.0 MiB', '18.8 GiB'; no limit is '16383.9 PiB') in
    bytes: DuckDB has no numeric form of the setting."""
    number, unit = setting.split()
    return float(number) * _UNITS[unit]


def size_to_set_back(shown: str) -> str:
    """A size setting as DuckDB shows it ('1.8 GiB'), to set it back: half its last shown digit
    more, in bytes. DuckDB shows a size cut to one decimal, so setting back what it shows lowers
    it (2GB shows 1.8 GiB, which set back shows 1.7, then 1.6: measured); this shows the same."""
    number, unit = shown.split()
    return f"{int((float(number) + 0.05) * _UNITS[unit])} bytes"


@contextmanager
def end_of_landing_memory(conn: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """At least 256 MB for the statements of the block (the rollups, then the landing's checks),
    the limit that was set restored after it."""
    ((limit,),) = run_sql(conn, "warehouse/select_memory_limit.sql")
    raised = _bytes(limit) < _ROLLUP_MEMORY
    if raised:
        run_sql(conn, "warehouse/set_memory_limit.sql", memory_limit=f"{_ROLLUP_MEMORY // 2**20}MB")
    try:
        yield
    finally:
        if raised:
            run_sql(conn, "warehouse/set_memory_limit.sql", memory_limit=size_to_set_back(limit))


def refresh_rollups(
    conn: duckdb.DuckDBPyConnection, *, scope: str, scope_name: str, start_day: date, end_day: date
) -> None:
    """Compute every rollup again for the scope's days (inside the caller's transaction)."""
    with end_of_landing_memory(conn):
        for rollup in ROLLUPS:
            last = end_day + timedelta(days=rollup.trail)
            days: dict[str, Any] = {"scope": scope, "scope_name": scope_name, "start_day": start_day, "end_day": last}
            run_sql(conn, "warehouse/delete_rollup_days.sql", identifiers={"table": rollup.name}, **days)
            run_sql(conn, f"rollups/{rollup.table}.sql", **days)
            run_sql(conn, "warehouse/mark_lake_changes.sql", tables=[rollup.name], start_day=start_day, end_day=last)


def rollups_checksum() -> str:
    digest = hashlib.sha256()
    for path in sorted((SQL_DIR / "rollups").glob("*.sql")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def rebuild_rollups(conn: duckdb.DuckDBPyConnection) -> None:
    """Every rollup computed again from all the facts, in one transaction (after facts were
    written other than by a landing, or when sql/rollups/ changed)."""
    conn.execute("BEGIN TRANSACTION")
    try:
        for rule in _RULES:
            run_sql(conn, f"rollups/{rule}")
        for rollup in ROLLUPS:
            run_sql(conn, "warehouse/clear_rollup.sql", identifiers={"table": rollup.name})
        for scope, scope_name, first, last in run_sql(conn, "warehouse/select_rollup_scopes.sql"):
            refresh_rollups(conn, scope=scope, scope_name=scope_name, start_day=first, end_day=last)
        run_sql(conn, "warehouse/record_rollup_checksum.sql", checksum=rollups_checksum())
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise


def rollups_stale(conn: duckdb.DuckDBPyConnection) -> bool:
    """Whether sql/rollups/ changed since the rollups were last built (a new rollup too)."""
    return run_sql(conn, "warehouse/select_rollup_checksum.sql") != [(rollups_checksum(),)]
