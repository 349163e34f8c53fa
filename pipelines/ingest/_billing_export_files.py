"""A usage report export's files: each downloaded from its signed link into the raw archive
(an expired link asks the service for the export's links again), its lines handed for parsing
(a file no line of which can land refuses the export: ExportUnreadable), and the month written
again without the people `metrics-etl forget` erased (their rows, their lines in the archived
file and in quarantine)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import polars as pl

from pipelines.ingest.archive import ArchivedFile, Segment, archive_stream
from pipelines.ingest.rewrite import rewrite_without
from pipelines.service import LinkExpired, ServiceClient, redact_url
from pipelines.service.billing_exports import Export, get_export
from pipelines.transform.columns import polars_types
from pipelines.warehouse.billing_exports import ExportMonth, export_line_names
from pipelines.warehouse.erasure import Forgotten

_ATTEMPTS = 3  # a file whose link expired mid-download: the export's links asked for again
_BATCH_LINES = 10_000


class ExportUnreadable(Exception):
    """A file of an export no line of which can land (its header names too little): the month
    landed before stays, rather than being replaced with nothing."""


@dataclass(frozen=True)
class ExportFile:
    index: int
    archived: ArchivedFile
    link: str  # without its signature
    segments: list[Segment]


def download_export_file(
    client: ServiceClient, export: Export, index: int, *, target: Path, enterprise: str
) -> ExportFile:
    """One file of the export into the archive, its lines kept for parsing (an export is a
    month of one enterprise's users: small); an expired link asks for the export's links again."""
    links = export.links
    for attempt in range(1, _ATTEMPTS + 1):
        segments: list[Segment] = []
        try:
            with client.open_link(url=links[index]) as response:
                archived = archive_stream(
                    response.iter_bytes(),
                    archive_dir=target,
                    stem=f"{index:04d}",
                    batch_rows=_BATCH_LINES,
                    emit=segments.append,
                )
        except LinkExpired:
            if attempt == _ATTEMPTS:
                raise
            links = get_export(client, enterprise=enterprise, export_id=export.id).links
            continue
        return ExportFile(index, archived, redact_url(links[index], keep_query=False), segments)
    raise AssertionError("unreachable")


def segment_lines(segments: list[Segment]) -> Iterator[tuple[int, str]]:
    """(number, text) of every line the archive handed over for parsing."""
    for segment in segments:
        if not segment.data:
            continue
        for offset, line in enumerate(segment.data.split(b"\n")[: segment.lines]):
            yield segment.first_line + offset, line.rstrip(b"\r").decode(errors="replace")


def table_frame(name: str, rows: list[dict[str, Any]]) -> pl.DataFrame:
    schema = polars_types(name)
    return pl.DataFrame([{c: row.get(c) for c in schema} for row in rows], schema=schema, orient="row")


def without_forgotten(month: ExportMonth, forgotten: Forgotten) -> ExportMonth:
    """The month without the erased people's rows, and its archived files without their lines."""
    logins = month.rows["user_login"].to_list()
    named = {login: forgotten.is_login(login) for login in set(logins) if login}
    if not any(named.values()):
        return month
    rows = month.rows.filter(pl.Series([bool(login) and named[login] for login in logins], dtype=pl.Boolean).not_())
    files = []
    for row in month.files.iter_rows(named=True):
        done = rewrite_without(Path(row["archive_path"]), lambda line: export_line_names(line, forgotten.is_login))
        if done is not None:
            Path(row["archive_path"]).unlink(missing_ok=True)
            row = row | {"archive_path": str(done.path), "sha256": done.sha256, "bytes": done.bytes}
        files.append(row)
    quarantine = month.quarantine.filter(
        pl.Series(
            [
                not export_line_names((text or "").encode(), forgotten.is_login)
                for text in month.quarantine["line_text"]
            ],
            dtype=pl.Boolean,
        )
    )
    return ExportMonth(
        month.scope_name,
        month.start,
        month.end,
        rows,
        table_frame("raw.report_files", files),
        quarantine,
        month.fetches,
    )
