"""The landing's threads, memory and checkpoint settings, for the landing only."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import duckdb

from pipelines.warehouse.rollups import size_to_set_back
from pipelines.warehouse.sql import run_sql


@contextmanager
def landing_resources(conn: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """sql/ingest/limit_resources.sql for the block, the connection's own settings after it.

    The connection outlives the landing (a run's page and summary, a test's queries): left at
    the landing's 48 MB, their queries ran out of memory.
    """
    ((threads, memory_limit, preserve_order, checkpoint_threshold),) = run_sql(conn, "ingest/select_resources.sql")
    run_sql(conn, "ingest/limit_resources.sql")
    try:
        yield
    finally:
        run_sql(
            conn,
            "ingest/restore_resources.sql",
            threads=threads,
            memory_limit=size_to_set_back(memory_limit),
            preserve_insertion_order=preserve_order,
            checkpoint_threshold=size_to_set_back(checkpoint_threshold),
        )
