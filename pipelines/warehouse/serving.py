"""The read-only serving copy BI tools hold open.

DuckDB allows one writing process; a BI tool holding the warehouse would block the pipeline.
So BI tools read a copy, written beside it under a temporary name and renamed into place: a
reader that already has the old copy open keeps reading it, new readers get the new one, and
nobody ever sees a half-written file.
"""

from __future__ import annotations

import os
from pathlib import Path

import duckdb

from pipelines.warehouse._sql import run_sql

_ALIAS = "serving_next"


def publish_serving_copy(conn: duckdb.DuckDBPyConnection, *, target: Path) -> Path:
    """Copy the whole warehouse (tables and views) to `target`, replacing it atomically."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.with_name(f".{target.name}.next")
    staging.unlink(missing_ok=True)
    run_sql(conn, "warehouse/limit_publish.sql")
    source = conn.execute("SELECT current_database()").fetchone()[0]
    conn.execute("ATTACH ? AS serving_next", [str(staging)])
    try:
        # Identifiers cannot be bound as parameters; both names are ours, not input.
        conn.execute(f'COPY FROM DATABASE "{source}" TO {_ALIAS}')
    finally:
        conn.execute(f"DETACH {_ALIAS}")
    with staging.open("rb") as handle:
        os.fsync(handle.fileno())
    os.replace(staging, target)
    return target
