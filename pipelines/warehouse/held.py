"""What committed writes keep in memory until a checkpoint, and giving it back.

DuckDB keeps rows committed since the last checkpoint in memory (`duckdb_memory()`'s
IN_MEMORY_TABLE, with the primary keys' new index entries, ART_INDEX) and cannot spill them: a
week's backfill of a 10,000-user organization and its 15,000-user enterprise held 68 MB after
eight reports and ran out of a 48 MB landing limit in the ninth (benchmarks/history.py). A
checkpoint writes them to the file and frees them. Checkpoints are not free (each writes the
metadata of every changed table), so one is taken only once a landing's commit leaves more than
`HELD_LIMIT` held beyond what stayed loaded after the connection's last checkpoint (the indexes
a landing reads): a daily run of a small organization takes none, a backfill one every few
reports, whatever the number of days it lands or the size of the warehouse.
"""

from __future__ import annotations

import duckdb

from pipelines.warehouse.sql import run_sql

__all__ = ["HELD_LIMIT", "checkpoint_when_held"]

# Half the landing's memory limit (48 MB, sql/ingest/limit_resources.sql): the rest is the room
# its batches, deletes and temporary key tables need.
HELD_LIMIT = 24 * 2**20


def checkpoint_when_held(conn: duckdb.DuckDBPyConnection, *, limit: int = HELD_LIMIT) -> bool:
    """Checkpoint (outside any transaction) when committed rows hold more than `limit` bytes;
    whether it did."""
    ((held,),) = run_sql(conn, "warehouse/select_held_memory.sql")
    if held <= limit:
        return False
    run_sql(conn, "warehouse/checkpoint_held.sql")
    return True
