"""`metrics-etl forget`: one person out of every store of the data home (docs/privacy.md).

Store by store, each in its own transaction or by atomic renames, and each recorded in
meta.erasures when done (when, how many rows and files, which store; never whom):

1. the webhook spool: loaded (the deliveries a person field of their kind names them in passed
   without landing), then its fully loaded segments removed; a segment a running receiver still
   writes that names the person, or holds their login in its text, stops the erasure, which is
   run again once the receiver is stopped;
2. the raw archive: every file of a user-level report (and billing export, and vendor's
   records, by the person's emails and vendor user ids) naming the person
   written again without their lines, and every archived seat listing without the seats they
   hold (their name and email with them) and their login in the other seats' text, its new path
   and sha256 recorded with its lineage; an archive file no row names (a killed run's) written again in place
   (privacy/unrecorded.py);
3. the ETag cache: every cached listing naming the person;
4. the warehouse: every row naming the person (warehouse.erasure.PERSON_TABLES, quarantined
   lines, webhook deliveries naming them in a person field), their login in kept free text
   replaced by a placeholder (other people's deliveries, issue titles, quarantined lines), and
   what is derived from their days computed again (agent and team days, the rollups), the lake
   partitions of all of them marked changed, and the days their user-level records left counted
   in core.erased_user_days (how many people, never whom: bi.reconciliation's reason);
5. the lake and the serving databases (the aggregate and pseudonymous tiers too): published
   again, then every version of the lake but the newest removed at once (`remove_unpublished_files`).

The person's keyed hashes are recorded first, so later fetches drop them on ingest, and a
crash at any step is mended by running the same command again: each step finds what is left.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from pipelines.ingest.rewrite import rewrite_lines
from pipelines.ingest.seat_listings import SEAT_HOLDER_KEY, seat_line_without
from pipelines.privacy.unrecorded import erase_from_unrecorded
from pipelines.publish.lake import publish, remove_unpublished_files
from pipelines.publish.pseudonymous import publish_pseudonymous
from pipelines.service import forget_cached
from pipelines.warehouse.billing_exports import export_line_names
from pipelines.warehouse.erasure import (
    Forgotten,
    Person,
    archive_files,
    erase_rows,
    load_forgotten,
    record_erased_days,
    record_rewrite,
    refresh_derived,
    remember,
)
from pipelines.warehouse.erasure_person import find_person
from pipelines.warehouse.erasure_text import erase_from_text
from pipelines.warehouse.erasure_vendors import vendor_line_names
from pipelines.warehouse.people import redact_text, screen_payload
from pipelines.warehouse.sql import rollback, run_sql
from pipelines.webhooks.load import load_spool, prune_spool
from pipelines.webhooks.segments import SpoolRecord, read_segment, segments

__all__ = ["ErasureResult", "ReceiverWriting", "forget"]


class ReceiverWriting(Exception):
    """A spool segment still being written names the person: the receiver must stop first."""


@dataclass(frozen=True)
class Places:
    raw_dir: Path
    spool_dir: Path
    etag_cache: Path | None
    lake: Path
    serving: Path
    aggregate_k: int


@dataclass
class ErasureResult:
    person_known: bool  # the warehouse held the person (else only the given half was looked for)
    stores: dict[str, tuple[int, int]] = field(default_factory=dict)  # store -> (rows, files)


def forget(conn: duckdb.DuckDBPyConnection, who: str, *, key: str, places: Places) -> ErasureResult:
    """Erase the person `who` (a login, a user id or an email) from every store; what each store lost."""
    person = find_person(conn, who)
    remember(conn, key.encode(), person)
    result = ErasureResult(person_known=person.user_id is not None and person.login is not None)
    erasure = _Erasure(conn, uuid.uuid4().hex, result)
    listing = re.compile(person.listing_pattern().encode())

    def names_listing(body: bytes) -> bool:
        return listing.search(body) is not None or _names_in_text(body.decode(errors="replace"), person)

    erasure.step("webhook spool", lambda: _spool(conn, places.spool_dir, person, load_forgotten(conn, key)))
    erasure.step("raw archive", lambda: _archive(conn, _edit_line(person), raw_dir=places.raw_dir))
    erasure.step(
        "etag cache",
        lambda: (0, forget_cached(places.etag_cache, names_listing)) if places.etag_cache is not None else (0, 0),
    )
    erasure.step("warehouse", lambda: _warehouse(conn, person))
    erasure.step("lake and serving databases", lambda: _lake(conn, places, key))
    # An email known only to the vendors (no seat shows it) names a person their rows were of.
    result.person_known = result.person_known or bool(person.emails and result.stores["warehouse"][0])
    return result


class _Erasure:
    def __init__(self, conn: duckdb.DuckDBPyConnection, erasure_id: str, result: ErasureResult) -> None:
        self._conn, self._id, self._result = conn, erasure_id, result

    def step(self, store: str, action: Callable[[], tuple[int, int]]) -> None:
        started = datetime.now(UTC)
        rows, files = action()
        run_sql(
            self._conn,
            "privacy/record_erasure.sql",
            erasure_id=self._id,
            store=store,
            started_at=started,
            rows=rows,
            files=files,
        )
        self._result.stores[store] = (rows, files)


def _names_in_text(text: str, person: Person) -> bool:
    return redact_text(text, person) != text


def _spool(
    conn: duckdb.DuckDBPyConnection, spool_dir: Path, person: Person, forgotten: Forgotten | None
) -> tuple[int, int]:
    loaded = load_spool(conn, spool_dir, forgotten=forgotten)
    pruned = prune_spool(conn, spool_dir)
    for segment in segments(spool_dir):
        if any(_segment_names(spooled.record, person) for spooled in read_segment(segment)):
            raise ReceiverWriting(
                f"the webhook receiver is still writing the spool segment {segment}, which names the person: stop "
                "the receiver, run `metrics-etl forget` again, then start the receiver"
            )
    return loaded.erased, len(pruned)


def _segment_names(record: SpoolRecord, person: Person) -> bool:
    """A spooled delivery names the person in a person field, or their login in its text."""
    text = record.payload.decode(errors="replace")
    return screen_payload(record.event, text, person) is not text


def _edit_line(person: Person) -> Callable[[bytes], bytes | None]:
    """An archived line without the person: a report line naming them in its user fields goes, a
    billing export's line whose username is theirs, and a vendor's record of their email or id; a
    seat listing's line (parsed only then: report lines hold no seat) goes when it is their seat,
    or loses their login from its text."""
    pattern = re.compile(person.report_line_pattern().encode())
    vendor_record = vendor_line_names(person)

    def edit(line: bytes) -> bytes | None:
        if pattern.search(line) is not None or export_line_names(line, person.is_login) or vendor_record(line):
            return None
        return seat_line_without(line, person) if SEAT_HOLDER_KEY in line else line

    return edit


# An archived file's place under RAW_DIR: <scope>/<name>/<level>-<kind>/<start>_<end>/<file> (archive.report_dir).
_ARCHIVE_DEPTH = 5


def _archived_at(path: Path, raw_dir: Path) -> Path | None:
    """Where a recorded archive file is now: where it was written, or, in a data home moved since
    (the record keeps the path it had then), the same place under this RAW_DIR; None if gone."""
    if path.is_file():
        return path
    moved = raw_dir.joinpath(*path.parts[-_ARCHIVE_DEPTH:])
    return moved if len(path.parts) > _ARCHIVE_DEPTH and moved.is_file() else None


def _archive(
    conn: duckdb.DuckDBPyConnection, edit: Callable[[bytes], bytes | None], *, raw_dir: Path
) -> tuple[int, int]:
    """Each file written again in its own step: renamed into place, recorded, the old one removed."""
    # Files a crash left behind after their new version was recorded go first.
    for (previous,) in run_sql(conn, "privacy/select_superseded_archive_files.sql"):
        left = _archived_at(Path(previous), raw_dir)
        if left is not None:
            left.unlink(missing_ok=True)
    # Files no row names (a killed run's, or fetches a restored warehouse does not know): in place.
    lines, files = erase_from_unrecorded(conn, edit, raw_dir=raw_dir)
    for path, sha in archive_files(conn):
        kept = _archived_at(Path(path), raw_dir)
        if kept is None:
            continue  # removed by retention, or never kept here
        done = rewrite_lines(kept, edit)
        if done is None:
            continue
        conn.execute("BEGIN TRANSACTION")
        try:
            record_rewrite(
                conn,
                previous=(path, sha),
                path=str(done.path),
                sha256=done.sha256,
                size=done.bytes,
                lines_removed=done.lines_removed,
                reason="erasure",
            )
            conn.execute("COMMIT")
        except BaseException:
            rollback(conn)
            raise
        if done.path != kept:
            kept.unlink(missing_ok=True)
        lines, files = lines + done.lines_removed, files + 1
    return lines, files


def _warehouse(conn: duckdb.DuckDBPyConnection, person: Person) -> tuple[int, int]:
    conn.execute("BEGIN TRANSACTION")
    try:
        erased = erase_rows(conn, person)
        record_erased_days(conn, [erased], on_ingest=False)
        beyond_rows = erase_from_text(conn, person)
        refresh_derived(conn, erased.days)
        conn.execute("COMMIT")
    except BaseException:
        rollback(conn)
        raise
    # The deleted rows' blocks are written over as the file is checkpointed and reused.
    conn.execute("CHECKPOINT")
    return sum(erased.rows.values()) + sum(beyond_rows.values()), 0


def _lake(conn: duckdb.DuckDBPyConnection, places: Places, key: str) -> tuple[int, int]:
    result = publish(conn, lake=places.lake, serving=places.serving, k=places.aggregate_k)
    publish_pseudonymous(conn, serving=places.serving, key=key)
    removed = remove_unpublished_files(places.lake)
    return 0, result.partitions_written + result.partitions_removed + len(removed)
