"""Spool → `events.webhook_deliveries`, exactly once, in bounded memory.

The position reached in each segment is stored in `events.spool_offsets` in the same DuckDB
transaction as the rows it covers: a crash before the commit loses the rows and the position
together (the next run reads them again), a crash after it keeps both. A redelivery that
reached the spool twice is skipped by its delivery id.

Memory (docs/webhooks.md, "Loader memory"): a batch holds at most `_MAX_BATCH_BYTES` of payload
(a larger delivery is a batch of its own) and the loader runs under `LOAD_MEMORY_LIMIT`, measured
to hold such a batch of any shape and a webhook-shaped delivery at the receiver's body limit. A
batch that fails anyway for what a delivery holds is split until the one delivery that fails
alone is set aside in `events.webhook_quarantine` with the error and its position passed, so it
never blocks the deliveries behind it.

A delivery naming a person erased by `metrics-etl forget` (`forgotten`: their keyed hashes) in
a person field its kind declares (`pipelines.service.people`, the same declaration erasure
matches) is passed without landing: its position moves on with the batch, nothing of it is
written, and the segment holding it goes with the others once fully loaded (`prune_spool`).
Any other delivery lands, an @mention of an erased person in its text replaced by a placeholder.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb
import pyarrow as pa

from pipelines.warehouse.people import screen_payload
from pipelines.warehouse.sql import first_meaningful_line, rollback, run_sql
from pipelines.webhooks.payload import PAYLOAD_RULES, spooled_refusal
from pipelines.webhooks.segments import SpooledRecord, read_segment, segments, writer_gone

if TYPE_CHECKING:
    from pipelines.warehouse.people import Forgotten

_BATCH_VIEW = "webhook_batch"
# Payload bytes a batch holds. Parsed, JSON takes 7 (webhook-shaped) to 33 (an array of digits)
# times its size in DuckDB: 8 MiB of any shape needs at most 263 MB, half the limit below.
_MAX_BATCH_BYTES = 8 << 20
# The loader's DuckDB bound, measured (docs/webhooks.md, "Loader memory"): a webhook-shaped
# delivery at the receiver's 25 MB body limit needs 200 MB, so 2.5 times that fits.
LOAD_MEMORY_LIMIT = "512MB"
# Out of memory while committing (a large string written out) is a TransactionException that
# says so only in its text.
_OUT_OF_MEMORY = re.compile(r"Out of Memory|could not allocate", re.I)
_BATCH_SCHEMA = pa.schema(
    [
        ("delivery_id", pa.string()),
        ("event", pa.string()),
        ("received_at", pa.string()),
        ("payload", pa.string()),
        ("spool_offset", pa.int64()),
        ("erased", pa.bool_()),
        ("refused", pa.string()),
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
    erased: int = 0  # deliveries naming an erased person, passed without landing


@dataclass(frozen=True)
class _Item:
    """A spooled delivery as it may land: `payload` with an erased person's @mention replaced,
    or None when a person field names one (it is passed)."""

    spooled: SpooledRecord
    payload: str | None
    # Why the receiver refuses this payload now (a segment written before it did): it is set aside.
    refused: str | None = None


@dataclass
class _Tally:
    forgotten: Forgotten | None = None
    duplicates: int = 0
    quarantined: int = 0
    passed: int = 0  # of erased people's deliveries
    inserted: list[tuple[str, str | None]] = field(default_factory=list)

    def screen(self, spooled: SpooledRecord) -> _Item:
        text = spooled.record.payload.decode("utf-8")
        # Checked by the receiver that spooled it, or checked here: parsing every payload in
        # Python would halve the loader's pace.
        refused = None if spooled.record.rules >= PAYLOAD_RULES else spooled_refusal(spooled.record.payload)
        if self.forgotten is None:
            return _Item(spooled, text, refused)
        return _Item(spooled, screen_payload(spooled.record.event, text, self.forgotten), refused)

    def add(self, batch: list[_Item], inserted: list[tuple[str, str | None]], set_aside: int) -> None:
        passed = sum(item.payload is None for item in batch)
        self.inserted += inserted
        self.quarantined += set_aside
        self.passed += passed
        self.duplicates += len(batch) - len(inserted) - set_aside - passed


def load_spool(
    conn: duckdb.DuckDBPyConnection,
    spool_dir: Path,
    *,
    batch_size: int = 1000,
    max_batches: int | None = None,
    forgotten: Forgotten | None = None,
) -> LoadResult:
    """Load every complete spool record not loaded yet, at most `batch_size` per transaction.

    `max_batches` bounds one call's work (a sensor tick); the next call resumes where it stopped.
    Sets the connection's memory limit to `LOAD_MEMORY_LIMIT`, as each phase sets its own.
    Deliveries naming a person `forgotten` holds are passed without landing.
    """
    if batch_size < 1:
        raise ValueError("batch_size must be at least 1")
    run_sql(conn, "webhooks/limit_load.sql", memory_limit=LOAD_MEMORY_LIMIT)
    offsets: dict[str, int] = dict(run_sql(conn, "webhooks/select_spool_offsets.sql"))
    tally = _Tally(forgotten=forgotten)
    for segment, batch in islice(_batches(spool_dir, offsets, batch_size), max_batches):
        _load_batch(conn, segment, [tally.screen(spooled) for spooled in batch], tally)
    return LoadResult(
        loaded=len(tally.inserted),
        duplicates=tally.duplicates,
        repositories=frozenset(repo for _, repo in tally.inserted if repo),
        quarantined=tally.quarantined,
        delivery_ids=tuple(delivery_id for delivery_id, _ in tally.inserted),
        erased=tally.passed,
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


def _batches(spool_dir: Path, offsets: dict[str, int], batch_size: int) -> Iterator[tuple[str, list[SpooledRecord]]]:
    """Runs of records in spool order: at most `batch_size` of them and `_MAX_BATCH_BYTES` of
    payload, or one record larger than that alone."""
    for segment in segments(spool_dir):
        batch: list[SpooledRecord] = []
        batch_bytes = 0
        for spooled in read_segment(segment, offset=offsets.get(segment.name, 0)):
            size = len(spooled.record.payload)
            if batch and (len(batch) == batch_size or batch_bytes + size > _MAX_BATCH_BYTES):
                yield segment.name, batch
                batch, batch_bytes = [], 0
            batch.append(spooled)
            batch_bytes += size
        if batch:
            yield segment.name, batch


def _load_batch(conn: duckdb.DuckDBPyConnection, segment: str, batch: list[_Item], tally: _Tally) -> None:
    """Commit the batch; if a delivery's content fails it, each half on its own, down to the one
    delivery that fails alone, which is set aside. Halves commit in spool order, so the segment's
    offset only moves forward and always covers exactly what was committed."""
    try:
        inserted, set_aside = _commit_batch(conn, segment, batch)
    except duckdb.Error as exc:
        if not _delivery_may_cause(exc):
            raise
        if len(batch) > 1:
            middle = len(batch) // 2
            _load_batch(conn, segment, batch[:middle], tally)
            _load_batch(conn, segment, batch[middle:], tally)
            return
        # A delivery no larger than a batch fits under the limit whatever its shape (measured):
        # out of memory alone, it says the process is short of memory, not that it is poisoned.
        if _out_of_memory(exc) and len(batch[0].spooled.record.payload) <= _MAX_BATCH_BYTES:
            raise
        inserted, set_aside = [], _quarantine(conn, segment, batch[0], exc)
    tally.add(batch, inserted, set_aside)


def _out_of_memory(error: duckdb.Error) -> bool:
    return isinstance(error, duckdb.OutOfMemoryException) or (
        isinstance(error, duckdb.TransactionException) and _OUT_OF_MEMORY.search(str(error)) is not None
    )


def _delivery_may_cause(error: duckdb.Error) -> bool:
    """What a delivery's own content can make DuckDB raise: its size or shape (out of memory), a
    value it cannot convert. Anything else (disk, lock, schema) fails the load, rows and offset unmoved."""
    return isinstance(error, (duckdb.ConversionException, duckdb.InvalidInputException)) or _out_of_memory(error)


def _commit_batch(
    conn: duckdb.DuckDBPyConnection, segment: str, batch: list[_Item]
) -> tuple[list[tuple[str, str | None]], int]:
    """Insert the batch and advance the segment's offset in one transaction.

    Returns the (delivery id, repository) of rows inserted and how many were quarantined.
    """
    with _registered(conn, batch):
        try:
            conn.begin()
            try:
                inserted = run_sql(conn, "webhooks/insert_webhook_deliveries.sql")
                finished = run_sql(
                    conn, "webhooks/finish_webhook_batch.sql", segment=segment, offset=batch[-1].spooled.end_offset
                )
                conn.commit()
            except BaseException:
                rollback(conn)
                raise
        finally:
            run_sql(conn, "webhooks/drop_webhook_batch_checked.sql")
    return inserted, len(finished)


def _quarantine(conn: duckdb.DuckDBPyConnection, segment: str, item: _Item, error: duckdb.Error) -> int:
    """Set aside one delivery that failed alone, with the error as its reason, and pass it."""
    reason = f"failed to load even alone: {type(error).__name__}: {first_meaningful_line(str(error))}"
    with _registered(conn, [item]):
        conn.begin()
        try:
            rows = run_sql(
                conn,
                "webhooks/quarantine_webhook_delivery.sql",
                segment=segment,
                offset=item.spooled.end_offset,
                reason=reason,
            )
            conn.commit()
        except BaseException:
            rollback(conn)
            raise
    return len(rows)


@contextmanager
def _registered(conn: duckdb.DuckDBPyConnection, batch: list[_Item]) -> Iterator[None]:
    """The batch as the Arrow view `webhook_batch` for the statements run inside the block, each
    delivery marked `erased` when it names an erased person (the statements pass it).

    DuckDB reads an Arrow string column in place: the payloads are not copied to be scanned, and
    they live in Python's memory, outside DuckDB's limit.
    """
    records = [item.spooled.record for item in batch]
    table = pa.table(
        {
            "delivery_id": [r.delivery_id for r in records],
            "event": [r.event for r in records],
            "received_at": [r.received_at for r in records],
            "payload": [item.payload or "" for item in batch],
            "spool_offset": [item.spooled.offset for item in batch],
            "erased": [item.payload is None for item in batch],
            "refused": [item.refused for item in batch],
        },
        schema=_BATCH_SCHEMA,
    )
    conn.register(_BATCH_VIEW, table)
    try:
        yield
    finally:
        conn.unregister(_BATCH_VIEW)
