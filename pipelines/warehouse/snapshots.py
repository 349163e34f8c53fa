"""Land one snapshot day: every snapshot table's rows for the day replaced in one transaction,
with the day's seat listings' raw.report_files rows (their archived files) and seat drift; or,
for a webhook refresh, the rows of the repositories it took again."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import date, datetime
from typing import Any

import duckdb
import polars as pl

from pipelines.transform.seat_fields import LISTING_KIND, LISTING_LEVEL
from pipelines.warehouse.catalog import tables
from pipelines.warehouse.sql import rollback, run_sql

SNAPSHOT_TABLES = tuple(t.table for t in tables(writer="snapshot"))
# The tables holding rows of one repository: what a refresh of named repositories replaces.
_BY_REPOSITORY = tuple(t for t in tables(writer="snapshot") if t.repository_name)
REPOSITORY_TABLES = tuple(t.table for t in _BY_REPOSITORY)

# The name the statements replacing a day read its rows from.
_FRAME_VIEW = "snapshot_frame"


class SnapshotFrameError(ValueError):
    """The frames handed in do not describe the day being replaced."""


def replace_snapshot_day(
    conn: duckdb.DuckDBPyConnection,
    *,
    day: date,
    frames: Mapping[str, pl.DataFrame],
    listings: pl.DataFrame | None = None,
    drift: pl.DataFrame | None = None,
) -> dict[str, int]:
    """Replace `day` in every snapshot table with `frames` (table name → rows), and, when given,
    the day's seat listings' `raw.report_files` rows with `listings` and their `raw.field_drift`
    rows with `drift`; all or nothing.

    Every table in SNAPSHOT_TABLES must be given, even empty, so a re-run cannot leave an old
    table's rows beside new ones. Returns rows written per table.
    """
    _check_frames(day=day, frames=frames)
    # Every snapshot table by the one statement, its name filled in; the seat listings' rows of
    # the raw tables, which reports share, by their level and kind.
    steps: list[tuple[str, pl.DataFrame, dict[str, str], dict[str, Any]]] = [
        ("replace_day", frames[table], {"table": f"snapshots.{table}"}, {}) for table in SNAPSHOT_TABLES
    ]
    listing = {"level": LISTING_LEVEL, "kind": LISTING_KIND}
    steps += [
        (sql, frame, {}, listing)
        for sql, frame in (("replace_seat_listing_files_day", listings), ("replace_seat_drift_day", drift))
        if frame is not None
    ]
    conn.begin()
    try:
        for sql, frame, identifiers, params in steps:
            conn.register(_FRAME_VIEW, frame.to_arrow())
            run_sql(conn, f"snapshots/{sql}.sql", identifiers=identifiers, day=day, **params)
            conn.unregister(_FRAME_VIEW)
        # raw.report_files is written whole by every publish; the drift is partitioned by day.
        changed = [f"snapshots.{t}" for t in SNAPSHOT_TABLES] + (["raw.field_drift"] if drift is not None else [])
        run_sql(conn, "warehouse/mark_lake_changes.sql", tables=changed, start_day=day, end_day=day)
        conn.commit()
    except BaseException:
        # An aborted transaction refuses even unregister: roll back first, then clean up.
        rollback(conn)
        conn.unregister(_FRAME_VIEW)
        raise
    return {table: frames[table].height for table in SNAPSHOT_TABLES}


def refresh_snapshot_repositories(
    conn: duckdb.DuckDBPyConnection,
    *,
    day: date,
    frames: Mapping[str, pl.DataFrame],
    names: Collection[str],
) -> None:
    """Replace, in `day`'s snapshot, the rows of the repositories `names` (as named) and of those
    `frames` hold (by id: a renamed one too) with `frames` (REPOSITORY_TABLES: table name → rows);
    the day's other rows stay. All or nothing."""
    _check_frames(day=day, frames=frames, expected=REPOSITORY_TABLES)
    subjects = sorted({*names, *frames["warnings"]["repository"].to_list()})
    ids = frames["repositories"]["repository_id"].to_list()
    conn.begin()
    try:
        for t in _BY_REPOSITORY:
            named = {"table": t.name, "name": str(t.repository_name)}
            if t.repository_id is None:
                run_sql(conn, "snapshots/delete_named_rows.sql", identifiers=named, day=day, names=subjects)
            else:  # by id too: a renamed one's rows as well
                by_id = named | {"id": t.repository_id}
                run_sql(
                    conn, "snapshots/delete_repository_rows.sql", identifiers=by_id, day=day, ids=ids, names=subjects
                )
        for table in REPOSITORY_TABLES:
            conn.register(_FRAME_VIEW, frames[table].to_arrow())
            run_sql(conn, "snapshots/insert_day_rows.sql", identifiers={"table": f"snapshots.{table}"})
            conn.unregister(_FRAME_VIEW)
        changed = [f"snapshots.{t}" for t in REPOSITORY_TABLES]
        run_sql(conn, "warehouse/mark_lake_changes.sql", tables=changed, start_day=day, end_day=day)
        conn.commit()
    except BaseException:
        rollback(conn)
        conn.unregister(_FRAME_VIEW)
        raise


def repositories_named_since(conn: duckdb.DuckDBPyConnection, *, since: datetime) -> list[str]:
    """The repositories the webhook deliveries loaded at or after `since` name."""
    return [name for (name,) in run_sql(conn, "snapshots/select_named_repositories.sql", since=since)]


def day_rows(conn: duckdb.DuckDBPyConnection, *, day: date) -> dict[str, int]:
    """Rows each snapshot table holds for `day`."""
    return {
        table: run_sql(conn, "snapshots/count_day_rows.sql", identifiers={"table": f"snapshots.{table}"}, day=day)[0][0]
        for table in SNAPSHOT_TABLES
    }


def listing_files(conn: duckdb.DuckDBPyConnection, *, day: date) -> list[str]:
    """The archive files of the day's seat listings (raw.report_files)."""
    rows = run_sql(conn, "snapshots/select_seat_listing_files.sql", level=LISTING_LEVEL, kind=LISTING_KIND, day=day)
    return [path for (path,) in rows]


def _check_frames(
    *, day: date, frames: Mapping[str, pl.DataFrame], expected: tuple[str, ...] = SNAPSHOT_TABLES
) -> None:
    missing = [t for t in expected if t not in frames]
    unknown = [t for t in frames if t not in expected]
    if missing or unknown:
        raise SnapshotFrameError(f"snapshot frames: missing {missing}, unknown {unknown}")
    for table, frame in frames.items():
        if frame.height and frame["snapshot_day"].ne(day).any():
            raise SnapshotFrameError(f"snapshots.{table}: rows for a day other than {day}")
