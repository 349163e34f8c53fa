"""A small report of a day carried by another's landing (user-teams with the user report, repos
with the aggregate one): fetched whole through the one download loop, archived under RAW_DIR
like every report file, parsed here, and landed by the carrying report in its own transaction.

Both are small (a few MB a day), so a file's lines are parsed once it is in.
"""

from __future__ import annotations

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
from pipelines.service.dialect import Level
from pipelines.transform import Provenance
from pipelines.warehouse import CarriedReport

__all__ = ["Lines", "Parse", "fetch_carried"]

_SEGMENT_LINES = 50_000

Lines = Iterable[tuple[int, bytes]]  # (line number, line)
# Lines into (rows per table, (line number, reason) of each refused line); given no lines, the
# empty frames.
Parse = Callable[[Lines, Provenance], tuple[dict[str, pl.DataFrame], list[tuple[int, str]]]]


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
        client, metadata, raw_dir=raw_dir, batch_rows=_SEGMENT_LINES,
        on_segment=lambda index, segment: segments.setdefault(index, []).append(segment),
        on_restart=lambda index: segments.pop(index, None),
        on_file=lambda index, archived, link: files.append(_File(archived, segments.pop(index, []), link)),
    )
    return files


def _lines(segment: Segment) -> Iterator[tuple[int, bytes]]:
    for offset, line in enumerate(segment.data.split(b"\n")[: segment.lines]):
        yield segment.first_line + offset, line


def fetch_carried(
    client: ServiceClient, carrier: ReportRef, level: Level, *, prov: Provenance, raw_dir: Path, parse: Parse
) -> CarriedReport | None:
    """The `level` report of the carrying 1-day report's day, parsed; None when the platform
    has none for the day (204/404: not yet, or not for this scope)."""
    assert carrier.day is not None, f"the {level} report is 1-day only"
    ref = replace(carrier, level=level)
    metadata = fetch_report_metadata(client, ref)
    if metadata is None:
        return None
    if (metadata.start_day, metadata.end_day) != (carrier.day, carrier.day):
        raise IngestError(
            f"{ref.scope} {ref.scope_name} {level} report asked for {carrier.day} is of {metadata.start_day}"
        )
    own = replace(prov, ref=ref, start_day=metadata.start_day, end_day=metadata.end_day)
    rows: dict[str, list[pl.DataFrame]] = {}
    files, quarantine = [], []
    for index, fetched in enumerate(_fetch_files(client, metadata, raw_dir=raw_dir)):
        texts = {number: line for segment in fetched.segments for number, line in _lines(segment)}
        rejects = [reject for segment in fetched.segments for reject in segment.rejects]
        records = 0
        for segment in fetched.segments:
            frames, refused = parse(_lines(segment), own)
            rejects += [Reject(number, reason, truncate_line(texts.get(number, b""))) for number, reason in refused]
            records += next(iter(frames.values())).height  # the first table's rows are the report's records
            for name, frame in frames.items():
                rows.setdefault(name, []).append(frame)
        files.append(file_row(own, fetched.archived, file_index=index, records=records, quarantined=len(rejects),
                              link=fetched.link))
        if rejects:
            quarantine.append(quarantine_frame(own, rejects, file_index=index,
                                               archive_path=str(fetched.archived.path), link=fetched.link))
    empty, _ = parse((), own)
    return CarriedReport(
        ref=ref,
        rows={name: pl.concat(rows[name]) if name in rows else frame for name, frame in empty.items()},
        files=pl.concat(files) if files else None,
        quarantine=pl.concat(quarantine) if quarantine else None,
    )
