"""The user-teams report of a day (an extension: docs/extensions.md), fetched for its user rows.

It is small (one line per user and team: ~3 MB a day for 10,000 users), so its files are
downloaded whole, archived under RAW_DIR like every report file, and parsed here; the user
report's landing then writes them in its own transaction (`ReportLanding.replace_user_teams`),
so a day's memberships and activity always come from the same run.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import polars as pl

from pipelines.ingest._download import download_report
from pipelines.ingest._lines import Reject, truncate_line
from pipelines.ingest._rows import file_row, quarantine_frame
from pipelines.ingest.archive import ArchivedFile, Segment
from pipelines.ingest.errors import IngestError
from pipelines.service import (
    ReportMetadata,
    ReportRef,
    ServiceClient,
    fetch_report_metadata,
)
from pipelines.transform import Provenance
from pipelines.transform.teams import user_team_rows
from pipelines.warehouse import UserTeams

__all__ = ["fetch_user_teams"]

_SEGMENT_LINES = 50_000


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


def fetch_user_teams(
    client: ServiceClient, user_ref: ReportRef, *, prov: Provenance, raw_dir: Path
) -> UserTeams | None:
    """The day's memberships for a user-level 1-day report; None when the platform has none for
    the day (not yet, or no teams report for this scope)."""
    assert user_ref.day is not None, "the user-teams report is 1-day only"
    ref = replace(user_ref, level="user-teams")
    metadata = fetch_report_metadata(client, ref)
    if metadata is None:
        return None
    if (metadata.start_day, metadata.end_day) != (user_ref.day, user_ref.day):
        raise IngestError(
            f"{ref.scope} {ref.scope_name} user-teams report asked for {user_ref.day} is of {metadata.start_day}"
        )
    team_prov = replace(prov, ref=ref, start_day=metadata.start_day, end_day=metadata.end_day)
    rows, files, quarantine = [], [], []
    for index, fetched in enumerate(_fetch_files(client, metadata, raw_dir=raw_dir)):
        parsed = [
            user_team_rows(
                _lines(segment), scope=ref.scope, scope_name=ref.scope_name, day=user_ref.day,
                entity_id=prov.entity_id, fetched_at=prov.fetched_at, served_at=prov.served_at,
            )
            for segment in fetched.segments
        ]
        texts = {number: line for segment in fetched.segments for number, line in _lines(segment)}
        rejects = [reject for segment in fetched.segments for reject in segment.rejects] + [
            Reject(line.line_number, line.reason, truncate_line(texts.get(line.line_number, b"")))
            for part in parsed
            for line in part.refused
        ]
        good = [part.frame for part in parsed]
        records = sum(frame.height for frame in good)
        rows += good
        files.append(
            file_row(
                team_prov, fetched.archived, file_index=index, records=records, quarantined=len(rejects),
                link=fetched.link,
            )
        )
        if rejects:
            quarantine.append(
                quarantine_frame(
                    team_prov, rejects, file_index=index, archive_path=str(fetched.archived.path), link=fetched.link
                )
            )
    return UserTeams(
        ref=ref,
        rows=pl.concat(rows) if rows else user_team_rows(
            (), scope=ref.scope, scope_name=ref.scope_name, day=user_ref.day, entity_id=None,
            fetched_at=prov.fetched_at, served_at=prov.served_at,
        ).frame,
        files=pl.concat(files) if files else None,
        quarantine=pl.concat(quarantine) if quarantine else None,
    )
