"""Spool → `events.webhook_deliveries`, exactly once.

The position reached in each segment is stored in `events.spool_offsets` in the same DuckDB
transaction as the rows it covers: a crash before the commit loses the rows and the position
together (the next run reads them again), a crash after it keeps both. A redelivery that
reached the spool twice is skipped by its delivery id.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path

import duckdb
import pyarrow as pa

from pipelines.warehouse.sql import rollback, run_sql
from pipelines.webhooks.segments import SpooledRecord, read_segment, segments, writer_gone

_BATCH_VIEW = "webhook_batch"
# Payloads can be up to the receiver's body limit each: cap a batch's bytes, not only its count.
_MAX_BATCH_BYTES = 64 << 20
_BATCH_SCHEMA = pa.schema(
    [
        ("delivery_id", pa.string()),
        ("event", pa.string()),
        ("received_at", pa.string()),
        ("payload", pa.string()),
        ("spool_offset", pa.int64()),
    ]
)


@dataclass(frozen=True)
class LoadResult:
    loaded: int = 0
    duplicates: int = 0
    repositories: frozenset[str] = field(default_factory=frozenset)
    quarantined: int = 0
    # The ids this call inserted: what the asset's checks look at.
    delivery_ids: tuple[str, ...] = ()


def load_spool(
    conn: duckdb.DuckDBPyConnection,
    spool_dir: Path,
    *,
    batch_size: int = 1000,
    max_batches: int | None = None,
) -> LoadResult:
    """Load every complete spool record not loaded yet, `batch_size` per transaction.

    `max_batches` bounds one call's work (a sensor tick); the next call resumes where it stopped.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    offsets: dict[str, int] = dict(run_sql(conn, "webhooks/select_spool_offsets.sql"))
    loaded = duplicates = quarantined = 0
    repositories: set[str] = set()
    delivery_ids: list[str] = []
    for segment, batch in islice(_batches(spool_dir, offsets, batch_size), max_batches):
        inserted, set_aside = _commit_batch(conn, segment, batch)
        loaded += len(inserted)
        delivery_ids.extend(delivery_id for delivery_id, _ in inserted)
        quarantined += set_aside
        duplicates += len(batch) - len(inserted) - set_aside
        repositories.update(repo for _, repo in inserted if repo)
    return LoadResult(
        loaded=loaded,
        duplicates=duplicates,
        repositories=frozenset(repositories),
        quarantined=quarantined,
        delivery_ids=tuple(delivery_ids),
    )


def prune_spool(conn: duckdb.DuckDBPyConnection, spool_dir: Path) -> list[str]:
    """Delete the segments that are fully loaded and that no receiver still writes; their names.

    A segment left with only a torn last record by a crashed receiver counts as fully loaded:
    that record was never acknowledged, so its sender retries it.
    """
    offsets: dict[str, int] = dict(run_sql(conn, "webhooks/select_spool_offsets.sql"))
    pruned = []
    for segment in segments(spool_dir):
        if not writer_gone(segment):
            continue
        if next(read_segment(segment, offset=offsets.get(segment.name, 0)), None) is not None:
            continue
        segment.unlink()
        pruned.append(segment.name)
    if pruned:
        # The file goes first: a crash before the row goes leaves a harmless stale row, while
        # the other order could reload the segment from 0 (skipped as duplicates, but wasted).
        run_sql(conn, "webhooks/delete_spool_offsets.sql", segments=pruned)
    return pruned


def _batches(
    spool_dir: Path, offsets: dict[str, int], batch_size: int
) -> Iterator[tuple[str, list[SpooledRecord]]]:
    for segment in segments(spool_dir):
        batch: list[SpooledRecord] = []
        batch_bytes = 0
        for spooled in read_segment(segment, offset=offsets.get(segment.name, 0)):
            batch.append(spooled)
            batch_bytes += len(spooled.record.payload)
            if len(batch) == batch_size or batch_bytes >= _MAX_BATCH_BYTES:
                yield segment.name, batch
                batch, batch_bytes = [], 0
        if batch:
            yield segment.name, batch


def _commit_batch(
    conn: duckdb.DuckDBPyConnection, segment: str, batch: list[SpooledRecord]
) -> tuple[list[tuple[str, str | None]], int]:
    """Insert the batch and advance the segment's offset in one transaction.

    Returns the (delivery id, repository) of rows inserted and how many were quarantined.
    """
    records = [spooled.record for spooled in batch]
    table = pa.table(
        {
            "delivery_id": [r.delivery_id for r in records],
            "event": [r.event for r in records],
            "received_at": [r.received_at for r in records],
            "payload": [r.payload.decode("utf-8") for r in records],
            "spool_offset": [spooled.offset for spooled in batch],
        },
        schema=_BATCH_SCHEMA,
    )
    conn.register(_BATCH_VIEW, table)
    try:
        conn.begin()
        try:
            inserted = run_sql(conn, "webhooks/insert_webhook_deliveries.sql")
            finished = run_sql(conn, "webhooks/finish_webhook_batch.sql", segment=segment, offset=batch[-1].end_offset)
            set_aside = len(finished)
            conn.commit()
        except BaseException:
            rollback(conn)
            raise
    finally:
        run_sql(conn, "webhooks/drop_webhook_batch_checked.sql")
        conn.unregister(_BATCH_VIEW)
    return inserted, set_aside
