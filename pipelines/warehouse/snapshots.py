"""Land one snapshot day: every snapshot table's rows for the day replaced in one transaction."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from functools import cache

import duckdb
import polars as pl

from pipelines._paths import SQL_DIR

SNAPSHOT_TABLES = ("repositories", "repository_stats", "issues", "org_members", "warnings")

# The name the INSERT statements in sql/snapshots/ read the day's frame from.
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
            conn.execute(_sql(f"delete_{table}_day"), [day])
            if frame.height:
                conn.register(_FRAME_VIEW, frame.to_arrow())
                try:
                    conn.execute(_sql(f"insert_{table}"))
                finally:
                    conn.unregister(_FRAME_VIEW)
            written[table] = frame.height
        conn.commit()
    except BaseException:
        conn.rollback()
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


@cache
def _sql(name: str) -> str:
    return (SQL_DIR / "snapshots" / f"{name}.sql").read_text(encoding="utf-8")
