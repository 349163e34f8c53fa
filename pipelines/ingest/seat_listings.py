"""Each seat listing archived as a report file is, and read back from the archive (docs/snapshots.md).

A listing, every page of it, is one NDJSON file written by the report files' archive writer
(`archive.archive_stream`: zstd, sha256, its name carrying the hash, a `.part` until complete)
under `RAW_DIR/<scope>/<name>/seats-snapshot/<day>_<day>/`: its first line the listing's
envelope (`total_seats` and whatever else its first page said beside the seats), then one line
per seat as listed. Its `raw.report_files` row (level `seats`, report kind `snapshot`, the
snapshot day as first and last day) lands in the snapshot's transaction, so retention, the
erasure of a person (the seat lines they hold: SEAT_HOLDER; their login in other seats' text)
and the archive lineage reach it as they reach report files. A seat of a person erased by
`metrics-etl forget` is never written, nor an @mention of their login.
`read_listing` gives the listing back, so the seat tables can be derived again from the archive.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

import polars as pl
import zstandard

from pipelines.ingest.archive import ArchivedFile, archive_stream, report_dir
from pipelines.ingest.drift import DriftTally
from pipelines.service.people import SEAT_HOLDER, seat_holder
from pipelines.service.repos import SEAT_ITEMS, SeatListing, seat_listing
from pipelines.transform.columns import polars_types
from pipelines.transform.seat_fields import LISTING_KIND, LISTING_LEVEL, json_text
from pipelines.warehouse.people import Forgotten, Person, redact_document

__all__ = ["SEAT_HOLDER_KEY", "Listed", "archive_listings", "read_listing", "seat_line_without"]

# The holder's key as an archived seat line spells it: a line without it holds no seat's holder.
SEAT_HOLDER_KEY = f'"{SEAT_HOLDER.path.split(".")[0]}"'.encode()


@dataclass(frozen=True)
class Listed:
    """One listing as fetched, with whose it is and what its seats carried beyond the declarations."""

    scope: str  # organization or enterprise
    name: str
    listing: SeatListing
    drift: list[tuple[str, str, object]]  # SeatRows.drift


def _line(document: object) -> bytes:
    return json_text(document).encode() + b"\n"


def seat_line_without(line: bytes, who: Person | Forgotten) -> bytes | None:
    """An archived listing's line without `who`: None for their seat (its holder's id or login:
    the line goes whole, their name and email with it), else the line with their login out of
    its text (a team's description mentioning them), as it is in every kept text."""
    try:
        document = json.loads(line)
    except (ValueError, RecursionError):
        return line
    kept = _without(document, who)
    return None if kept is None else line if kept is document else _line(kept)


def _without(seat: object, who: Person | Forgotten) -> object | None:
    """The seat (or the envelope) without `who`: None when it is theirs, the same object when
    nothing of it names them."""
    user_id, login = seat_holder(seat)
    if (user_id is not None or login is not None) and who.is_person(user_id, login):
        return None
    if not who.suspects(json_text(seat)):
        return seat
    redacted = redact_document(seat, who)
    return seat if redacted == seat else redacted


def archive_listings(
    listed: list[Listed],
    *,
    raw_dir: Path | None,
    day: date,
    fetched_at: datetime,
    forgotten: Forgotten | None,
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Archive each listing under `raw_dir` (None: not kept); the raw.report_files rows of the
    files written and the raw.field_drift rows of the listings' seats."""
    files = (
        []
        if raw_dir is None
        else [_archive(each, raw_dir=raw_dir, day=day, fetched_at=fetched_at, forgotten=forgotten) for each in listed]
    )
    drift = [_drift(each, day=day, fetched_at=fetched_at) for each in listed]
    return (
        pl.concat(files) if files else _files_frame([]),
        pl.concat(drift) if drift else _drift_frame(DriftTally(""), "", "", fetched_at),
    )


def _archive(
    each: Listed, *, raw_dir: Path, day: date, fetched_at: datetime, forgotten: Forgotten | None
) -> pl.DataFrame:
    kept = (
        each.listing.seats
        if forgotten is None
        else [without for seat in each.listing.seats if (without := _without(seat, forgotten)) is not None]
    )

    def lines() -> Iterator[bytes]:
        yield _line(each.listing.envelope)
        for seat in kept:
            yield _line(seat)

    target = report_dir(
        raw_dir,
        scope=each.scope,
        scope_name=each.name,
        level=LISTING_LEVEL,
        kind=LISTING_KIND,
        start_day=day,
        end_day=day,
    )
    archived = archive_stream(lines(), archive_dir=target, stem=f"{0:04d}", batch_rows=1 << 20, emit=lambda _: None)
    return _files_frame([_file_row(each, archived, day=day, fetched_at=fetched_at, seats=len(kept))])


def _file_row(each: Listed, archived: ArchivedFile, *, day: date, fetched_at: datetime, seats: int) -> dict[str, Any]:
    return {
        "scope": each.scope,
        "scope_name": each.name,
        "report_kind": LISTING_KIND,
        "level": LISTING_LEVEL,
        "report_start_day": day,
        "report_end_day": day,
        "file_index": 0,
        "bytes": archived.bytes,
        "sha256": archived.sha256,
        "records": seats,
        "quarantined": 0,
        "repeated_lines": 0,
        "archive_path": str(archived.path),
        "link": each.listing.source,
        "fetched_at": fetched_at,
    }


_FILES_SCHEMA = polars_types("raw.report_files")  # its declaration's (pipelines/transform/columns.py)


def _files_frame(rows: list[dict[str, Any]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=_FILES_SCHEMA)


def _drift(each: Listed, *, day: date, fetched_at: datetime) -> pl.DataFrame:
    """Each path counted once per seat, as a report's records are counted (ingest/drift.py), and
    named where the listing holds it (`seats[].assignee.pronouns`), as no record field is."""
    tally = DriftTally(dialect="")
    for path, drift, value in each.drift:
        tally.count(day=day, path=f"{SEAT_ITEMS}[].{path}", drift=drift, value=value)
    return _drift_frame(tally, each.scope, each.name, fetched_at)


def _drift_frame(tally: DriftTally, scope: str, name: str, fetched_at: datetime) -> pl.DataFrame:
    return tally.frame().select(
        pl.lit(scope).alias("scope"),
        pl.lit(name).alias("scope_name"),
        pl.lit(LISTING_LEVEL).alias("level"),
        pl.lit(LISTING_KIND).alias("report_kind"),
        pl.all(),
        pl.lit(fetched_at, dtype=pl.Datetime("us", "UTC")).alias("fetched_at"),
    )


def read_listing(path: Path, *, source: str) -> SeatListing:
    """The listing an archive file holds, as it was fetched (less the seats of erased people)."""
    with path.open("rb") as raw, zstandard.ZstdDecompressor().stream_reader(raw) as unpacked:
        lines = unpacked.read().splitlines()
    envelope: Mapping[str, Any] = json.loads(lines[0]) if lines else {}
    return seat_listing(dict(envelope), [json.loads(line) for line in lines[1:]], source=source)
