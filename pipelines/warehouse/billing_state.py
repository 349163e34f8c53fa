"""Land one snapshot day of the billing state (cost centers and their resources, budgets and
their user states, seat breakdowns): each table's rows of the owners fetched replaced, with a
billing.fetches row per scope asked (ok, denied), all in one transaction, so a re-run of the day
replaces what the first left and a failure leaves the day as it was (docs/billing.md)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import date

import duckdb
import polars as pl

from pipelines.warehouse.catalog import Table, table, tables
from pipelines.warehouse.replace import LANDINGS, _run_on_batch
from pipelines.warehouse.sql import rollback, run_sql

__all__ = ["STATE_TABLES", "replace_state_day"]

# The billing tables a snapshot day holds: the billing landing's tables partitioned by it.
STATE_TABLES: tuple[Table, ...] = tuple(t for t in tables(writer="billing") if t.partition == "snapshot_day")
_FRAME_VIEW = "state_frame"
_FETCHES = "billing.fetches"


def _owner(declared: Table) -> str:
    """The grain's column naming whose state a row is (enterprise, org_login)."""
    return declared.grain[1]


def replace_state_day(
    conn: duckdb.DuckDBPyConnection,
    *,
    day: date,
    frames: Mapping[str, pl.DataFrame],
    owners: Collection[str],
    kept: Mapping[str, Collection[str]] | None = None,
    fetches: pl.DataFrame | None = None,
) -> dict[str, int]:
    """Replace `day`'s rows of `owners` in every state table with `frames` (table name → rows, every
    state table given, even empty), but for the owners `kept` names of a table (table name →
    owners whose rows of it stay: a listing of theirs refused), and record `fetches`
    (billing.fetches rows); all or nothing. Returns rows written per table."""
    expected = {t.name for t in STATE_TABLES}
    if set(frames) != expected:
        raise ValueError(
            f"billing state frames: missing {sorted(expected - set(frames))}, unknown {sorted(set(frames) - expected)}"
        )
    for name, frame in frames.items():
        if frame.height and frame["snapshot_day"].ne(day).any():
            raise ValueError(f"{name}: rows for a day other than {day}")
    conn.begin()
    try:
        for declared in STATE_TABLES:
            conn.register(_FRAME_VIEW, frames[declared.name].to_arrow())
            run_sql(
                conn,
                "billing/replace_state_day.sql",
                identifiers={"table": declared.name, "owner": _owner(declared)},
                day=day,
                owners=sorted(set(owners) - set((kept or {}).get(declared.name, ()))),
            )
            conn.unregister(_FRAME_VIEW)
        marked = sorted(expected)
        if fetches is not None and fetches.height:
            landing = table(_FETCHES).landing
            assert landing is not None
            _run_on_batch(conn, LANDINGS[landing], fetches.to_arrow(), identifiers={"table": _FETCHES})
            marked.append(_FETCHES)
        run_sql(conn, "warehouse/mark_lake_changes.sql", tables=marked, start_day=day, end_day=day)
        conn.commit()
    except BaseException:
        # An aborted transaction refuses even unregister: roll back first, then clean up.
        rollback(conn)
        conn.unregister(_FRAME_VIEW)
        raise
    return {name: frame.height for name, frame in frames.items()}
