"""The one download loop of every report kind: each file of a report streamed into the raw
archive (RAW_DIR/<scope>/<name>/<level>-<kind>/<start>_<end>/), an expired link refreshing the
report's metadata, a cut download fetched again, at most MAX_ATTEMPTS times a file.

The loop hands what it has as it goes (a segment of lines, a restart of a file, a file done)
to callbacks, so the streaming pipeline parses while it downloads and a small report simply
collects; the client under it retries rate limits and 5xx answers itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from pipelines._words import counted
from pipelines.ingest.archive import ArchivedFile, Segment, archive_stream, report_dir
from pipelines.ingest.errors import DownloadGaveUp, ReportChanged
from pipelines.service import (
    LinkExpired,
    ReportMetadata,
    ServiceClient,
    TruncatedDownload,
    fetch_report_metadata,
    open_report_file,
    redact_url,
)

MAX_ATTEMPTS = 5
# The network hands over ~64 KB pieces; hashing, compressing and splitting them in ~1 MB pieces
# cuts the per-piece Python work (the downloading thread holds the GIL for it).
_CHUNK_BYTES = 1 << 20


def archive_dir(raw_dir: Path, metadata: ReportMetadata) -> Path:
    ref = metadata.ref
    return report_dir(
        raw_dir,
        scope=ref.scope,
        scope_name=ref.scope_name,
        level=ref.level,
        kind=ref.kind,
        start_day=metadata.start_day,
        end_day=metadata.end_day,
    )


def _chunks(client: ServiceClient, link: str, check: Callable[[], None]) -> Iterator[bytes]:
    with open_report_file(client, link) as stream:
        pending: list[bytes] = []
        size = 0
        for chunk in stream.iter_bytes():
            check()
            pending.append(chunk)
            size += len(chunk)
            if size >= _CHUNK_BYTES:
                yield b"".join(pending)
                pending, size = [], 0
        if pending:
            yield b"".join(pending)


def _refresh_links(client: ServiceClient, old: ReportMetadata) -> tuple[str, ...]:
    fresh = fetch_report_metadata(client, old.ref)
    shape = (old.start_day, old.end_day, len(old.links))
    if fresh is None or (fresh.start_day, fresh.end_day, len(fresh.links)) != shape:
        raise ReportChanged(
            f"{old.ref.scope} {old.ref.scope_name} {old.ref.level} {old.ref.kind} report changed while it was "
            f"being downloaded ({old.start_day}..{old.end_day}, {counted(len(old.links), 'file')}); run it again"
        )
    return fresh.links


def download_report(
    client: ServiceClient,
    metadata: ReportMetadata,
    *,
    raw_dir: Path,
    batch_rows: int,
    on_segment: Callable[[int, Segment], object],
    on_restart: Callable[[int], object],
    on_file: Callable[[int, ArchivedFile, str], object],
    check: Callable[[], None] = lambda: None,
) -> None:
    """Download and archive every file of the report, in order.

    `on_segment(index, segment)` gets each segment of `batch_rows` lines as it is archived;
    `on_restart(index)` says file `index` is fetched again from its start (drop its segments);
    `on_file(index, archived, link)` says it is complete (`link` without its signature).
    `check()` is called for every piece received and may raise to stop the download.
    """
    links = metadata.links
    target = archive_dir(raw_dir, metadata)
    what = f"{metadata.ref.level} {metadata.ref.kind} report"
    for index in range(len(links)):

        def emit(segment: Segment, index: int = index) -> None:
            on_segment(index, segment)

        for attempt in range(1, MAX_ATTEMPTS + 1):
            try:
                archived = archive_stream(
                    _chunks(client, links[index], check),
                    archive_dir=target,
                    stem=f"{index:04d}",
                    batch_rows=batch_rows,
                    emit=emit,
                )
            except LinkExpired:
                on_restart(index)
                if attempt == MAX_ATTEMPTS:
                    raise DownloadGaveUp(f"file {index} of the {what}: link expired {attempt} times") from None
                links = _refresh_links(client, metadata)
                continue
            except TruncatedDownload as exc:
                on_restart(index)
                if attempt == MAX_ATTEMPTS:
                    raise DownloadGaveUp(f"file {index} of the {what}: {exc}") from None
                continue
            on_file(index, archived, redact_url(links[index], keep_query=False))
            break
