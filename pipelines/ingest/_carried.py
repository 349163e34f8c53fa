"""A small report of a day carried by another's landing (user-teams with the user report, repos
with the aggregate one): fetched whole through the one download loop, archived under RAW_DIR
like every report file, parsed here, and landed by the carrying report in its own transaction.

Both are small (a few MB a day), so a file's lines are parsed once it is in.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import polars as pl

from pipelines.ingest._download import download_report
from pipelines.ingest._lines import Reject, truncate_line
from pipelines.ingest._rows import file_row, quarantine_frame
from pipelines.ingest.archive import ArchivedFile, Segment
from pipelines.ingest.errors import IngestError
from pipelines.service import ReportMetadata, ReportRef, ServiceClient, fetch_report_metadata
from pipelines.service.kinds import ReportKind
from pipelines.transform import Provenance
from pipelines.transform.repeats import KeyedLines, Place, conflict_reason
from pipelines.warehouse import CarriedReport

__all__ = ["CarriedLines", "Lines", "Parse", "fetch_carried"]

_SEGMENT_LINES = 50_000

Lines = Iterable[tuple[int, bytes]]  # (line id, line): ids are the report's lines in order, from 0


@dataclass(frozen=True)
class CarriedLines:
    """A carried report's lines, parsed: each refers to a line by its id in `Lines`."""

    frames: dict[str, pl.DataFrame]  # rows per table, the tables its writer (its level) writes
    refused: list[tuple[int, str]]  # (line id, reason)
    lines: list[int]  # the line id of each row of the first table (one row per landed line)
    keyed: KeyedLines  # lines of one key listed more than once (places (0, line id))
    what: str  # a key in words naming no person, for a conflict's reason: "one repository of 2026-11-20"


# The report's lines into its rows; given no lines, the empty frames.
Parse = Callable[[Lines, Provenance], CarriedLines]


@dataclass
class _File:
    archived: ArchivedFile
    segments: list[Segment]
    link: str


def _fetch_files(client: ServiceClient, metadata: ReportMetadata, *, raw_dir: Path) -> list[_File]:
    """Every file of the report, through the one download loop (a restarted file starts over)."""
    segments: dict[int, list[Segment]] = {}
    files: list[_File] = []
    download_report(
        client,
        metadata,
        raw_dir=raw_dir,
        batch_rows=_SEGMENT_LINES,
        on_segment=lambda index, segment: segments.setdefault(index, []).append(segment),
        on_restart=lambda index: segments.pop(index, None),
        on_file=lambda index, archived, link: files.append(_File(archived, segments.pop(index, []), link)),
    )
    return files


def _lines(segment: Segment) -> Iterator[tuple[int, bytes]]:
    for offset, line in enumerate(segment.data.split(b"\n")[: segment.lines]):
        yield segment.first_line + offset, line


def fetch_carried(
    client: ServiceClient, carrier: ReportRef, kind: ReportKind, *, prov: Provenance, raw_dir: Path, parse: Parse
) -> CarriedReport | None:
    """The `kind` report of the carrying 1-day report's day, parsed by `parse`; None when the
    platform has none for the day (204/404: not yet, or not for this scope).

    Its files are parsed as one report, so a key on lines of two files is found like any other:
    the same line twice lands once (counted per file in raw.report_files.repeated_lines), lines
    that differ are quarantined, each with a reason naming every line of the key.
    """
    level = kind.level
    ref = replace(carrier, level=level, kind=kind.kind)
    metadata = fetch_report_metadata(client, ref)
    if metadata is None:
        return None
    if (metadata.start_day, metadata.end_day) != (carrier.day, carrier.day):
        raise IngestError(
            f"{ref.scope} {ref.scope_name} {level} report asked for {carrier.day} is of {metadata.start_day}"
        )
    own = replace(prov, ref=ref, start_day=metadata.start_day, end_day=metadata.end_day)
    fetched = _fetch_files(client, metadata, raw_dir=raw_dir)
    places: list[Place] = []  # (file index, line number) of each line id
    texts: list[bytes] = []

    def numbered() -> Iterator[tuple[int, bytes]]:
        for index, file in enumerate(fetched):
            for segment in file.segments:
                for number, line in _lines(segment):
                    places.append((index, number))
                    texts.append(line)
                    yield len(places) - 1, line

    parsed = parse(numbered(), own)
    rejects: dict[int, list[Reject]] = {
        index: list(itertools.chain.from_iterable(s.rejects for s in file.segments))
        for index, file in enumerate(fetched)
    }
    for ident, reason in parsed.refused:
        rejects[places[ident][0]].append(Reject(places[ident][1], reason, truncate_line(texts[ident])))
    for key, group in parsed.keyed.conflicts.items():
        reason = conflict_reason([places[ident] for _, ident in parsed.keyed.every_line(key)], parsed.what)
        for _, ident in group:
            rejects[places[ident][0]].append(Reject(places[ident][1], reason, truncate_line(texts[ident])))
    records = Counter(places[ident][0] for ident in parsed.lines)
    repeated = Counter(places[ident][0] for _, ident in parsed.keyed.repeated)
    files, quarantine = [], []
    for index, file in enumerate(fetched):
        found = sorted(rejects[index], key=lambda r: r.line_number)
        files.append(
            file_row(
                own,
                file.archived,
                file_index=index,
                records=records[index],
                quarantined=len(found),
                repeated=repeated[index],
                link=file.link,
            )
        )
        if found:
            quarantine.append(
                quarantine_frame(own, found, file_index=index, archive_path=str(file.archived.path), link=file.link)
            )
    return CarriedReport(
        ref=ref,
        rows=parsed.frames,
        files=pl.concat(files) if files else None,
        quarantine=pl.concat(quarantine) if quarantine else None,
        lines=len(parsed.lines),
    )
