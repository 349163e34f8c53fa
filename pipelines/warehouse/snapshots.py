"""Land one snapshot day: every snapshot table's rows for the day replaced in one transaction."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

import duckdb
import polars as pl

from pipelines.warehouse.catalog import tables
from pipelines.warehouse.sql import rollback, run_sql

SNAPSHOT_TABLES = tuple(t.table for t in tables(writer="snapshot"))

# The name sql/snapshots/replace_*_day.sql read the day's rows from.
_FRAME_VIEW = "snapshot_frame"


class SnapshotFrameError(ValueError):
    """The frames handed in do not describe the day being replaced."""


def replace_snapshot_day(
    conn: duckdb.DuckDBPyConnection, *, day: date, frames: Mapping[str, pl.DataFrame]
) -> dict[str, int]:
    """Replace `day` in every snapshot table with `frames` (table name → rows); all or nothing.

    Every table in SNAPSHOT_TABLES must be given, even empty, so a re-run cannot leave an old
    table's rows beside new ones. Returns rows written per table.
    """
    _check_frames(day=day, frames=frames)
    written: dict[str, int] = {}
    conn.begin()
    try:
        for table in SNAPSHOT_TABLES:
            frame = frames[table]
            conn.register(_FRAME_VIEW, frame.to_arrow())
            run_sql(conn, f"snapshots/replace_{table}_day.sql", day=day)
            conn.unregister(_FRAME_VIEW)
            written[table] = frame.height
        run_sql(conn, "warehouse/mark_lake_changes.sql", tables=[f"snapshots.{t}" for t in SNAPSHOT_TABLES],
                start_day=day, end_day=day)
        conn.commit()
    except BaseException:
        # An aborted transaction refuses even unregister: roll back first, then clean up.
        rollback(conn)
        conn.unregister(_FRAME_VIEW)
        raise
    return written


def _check_frames(*, day: date, frames: Mapping[str, pl.DataFrame]) -> None:
    missing = [t for t in SNAPSHOT_TABLES if t not in frames]
    unknown = [t for t in frames if t not in SNAPSHOT_TABLES]
    if missing or unknown:
        raise SnapshotFrameError(f"snapshot frames: missing {missing}, unknown {unknown}")
    for table, frame in frames.items():
        if frame.height and frame["snapshot_day"].ne(day).any():
            raise SnapshotFrameError(f"snapshots.{table}: rows for a day other than {day}")
