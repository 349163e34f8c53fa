"""ingest_report: report metadata -> files (archived, parsed, transformed) -> one transaction.

Three stages joined by small bounded queues: a downloader thread streams file after file into
the archive and cuts it into in-memory segments; a parser thread parses and transforms each
segment; the calling thread inserts the rows into core inside the report's one open
transaction (which began by deleting the report's days). So network and archiving, parsing
and writing run at once (PyArrow, Polars and DuckDB release the GIL), and every row is
written once. An expired link
refreshes the metadata and restarts that file; a cut download restarts it; either way the
rows that file landed are taken back out first. The transaction commits only when every file
is complete; any failure rolls it back, leaving the previous state.
"""

from __future__ import annotations

import io
import queue
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import date, datetime, timezone
from pathlib import Path

import duckdb
import polars as pl

from pipelines.ingest.archive import ArchivedFile, Segment, archive_stream, remove_dead_parts
from pipelines.ingest.errors import DownloadGaveUp, IngestError, ReportChanged
from pipelines.ingest.parse import Reject, line_texts, read_lines, read_segment
from pipelines.service import (
    LinkExpired,
    ReportMetadata,
    ReportRef,
    ServiceClient,
    TruncatedDownload,
    fetch_report_metadata,
    open_report_file,
    redact_url,
)
from pipelines.transform import ReportContext, Transformed, empty_records, transform_records
from pipelines.transform.schema import ENTITY_ID_FIELDS
from pipelines.warehouse import ReportKey, ReportLanding, SharedRecordKeys, land_report
from pipelines.warehouse.sql import run_sql
from pipelines.warehouse.checks import CheckOutcome

DEFAULT_BATCH_ROWS = 10_000
_MAX_ATTEMPTS = 5
_QUEUE_ITEMS = 1  # segments in flight per stage: bounds memory (each is ~15 MB of NDJSON)
_CHUNK_BYTES = 1 << 20


@dataclass(frozen=True)
class IngestResult:
    available: bool
    rows: dict[str, int] = field(default_factory=dict)
    files: int = 0
    bytes: int = 0
    quarantined: int = 0
    days: tuple[date, ...] = ()
    agents: tuple[str, ...] = ()
    restarts: int = 0
    checks: tuple[CheckOutcome, ...] = ()


@dataclass(frozen=True)
class _Restart:
    file_index: int


@dataclass(frozen=True)
class _FileDone:
    file_index: int
    archived: ArchivedFile
    link: str


@dataclass(frozen=True)
class _SegmentReady:
    file_index: int
    segment: Segment


@dataclass(frozen=True)
class _Parsed:
    file_index: int
    result: Transformed
    rejects: list[Reject]


@dataclass(frozen=True)
class _Failed:
    error: BaseException


_DONE = object()


class _Stopped(Exception):
    """A later stage gave up; this one stops quietly."""


class _Stage(threading.Thread):
    """A thread that hands its items downstream through a small bounded queue."""

    def __init__(self, *, name: str, stop: threading.Event) -> None:
        super().__init__(name=name, daemon=True)
        self.items: queue.Queue = queue.Queue(maxsize=_QUEUE_ITEMS)
        self.stop = stop

    def _put(self, item: object) -> None:
        while not self.stop.is_set():
            try:
                self.items.put(item, timeout=0.2)
                return
            except queue.Full:
                continue
        raise _Stopped

    def _fail(self, error: BaseException) -> None:
        try:
            self._put(_Failed(error))
        except _Stopped:
            pass

    def next_item(self) -> object:
        """The next item this stage handed on; _Stopped once the run is stopping.

        A stage always ends with _DONE or _Failed; the liveness check only guards against one
        that died without a word, which would otherwise leave its reader waiting for ever.
        """
        while not self.stop.is_set():
            try:
                return self.items.get(timeout=0.2)
            except queue.Empty:
                if not self.is_alive() and self.items.empty():
                    raise IngestError(f"the {self.name} stage stopped without finishing") from None
        raise _Stopped


def _archive_dir(raw_dir: Path, metadata: ReportMetadata) -> Path:
    ref = metadata.ref
    return (
        raw_dir
        / ref.scope
        / ref.scope_name
        / f"{ref.level}-{ref.kind}"
        / f"{metadata.start_day.isoformat()}_{metadata.end_day.isoformat()}"
    )


class _Downloader(_Stage):
    def __init__(self, *, client: ServiceClient, metadata: ReportMetadata, raw_dir: Path, batch_rows: int, stop: threading.Event) -> None:
        super().__init__(name="report-download", stop=stop)
        self._client = client
        self._metadata = metadata
        self._raw_dir = raw_dir
        self._batch_rows = batch_rows

    def _chunks(self, link: str) -> Iterator[bytes]:
        # The network hands over ~64 KB pieces; hashing, compressing and splitting them in
        # ~1 MB pieces cuts the per-piece Python work (this thread holds the GIL for it).
        with open_report_file(self._client, link) as stream:
            pending: list[bytes] = []
            size = 0
            for chunk in stream.iter_bytes():
                if self.stop.is_set():
                    raise _Stopped
                pending.append(chunk)
                size += len(chunk)
                if size >= _CHUNK_BYTES:
                    yield b"".join(pending)
                    pending, size = [], 0
            if pending:
                yield b"".join(pending)

    def _refresh_links(self) -> tuple[str, ...]:
        fresh = fetch_report_metadata(self._client, self._metadata.ref)
        old = self._metadata
        if fresh is None or (fresh.start_day, fresh.end_day, len(fresh.links)) != (old.start_day, old.end_day, len(old.links)):
            raise ReportChanged(
                f"{old.ref.scope} {old.ref.scope_name} {old.ref.level} {old.ref.kind} report changed while it was "
                f"being downloaded ({old.start_day}..{old.end_day}, {len(old.links)} files); run it again"
            )
        return fresh.links

    def run(self) -> None:
        try:
            links = self._metadata.links
            archive_dir = _archive_dir(self._raw_dir, self._metadata)
            for index in range(len(links)):
                for attempt in range(1, _MAX_ATTEMPTS + 1):
                    try:
                        archived = archive_stream(
                            self._chunks(links[index]),
                            archive_dir=archive_dir,
                            stem=f"{index:04d}",
                            batch_rows=self._batch_rows,
                            emit=lambda seg, i=index: self._put(_SegmentReady(i, seg)),
                        )
                    except LinkExpired:
                        self._put(_Restart(index))
                        if attempt == _MAX_ATTEMPTS:
                            raise DownloadGaveUp(f"file {index} of the report: link expired {attempt} times") from None
                        links = self._refresh_links()
                        continue
                    except TruncatedDownload as exc:
                        self._put(_Restart(index))
                        if attempt == _MAX_ATTEMPTS:
                            raise DownloadGaveUp(f"file {index} of the report: {exc}") from None
                        continue
                    self._put(_FileDone(index, archived, redact_url(links[index], keep_query=False)))
                    break
            self._put(_DONE)
        except _Stopped:
            return
        except BaseException as exc:  # handed downstream; the calling thread raises it
            self._fail(exc)


class _ParseWorker(_Stage):
    """Parses and transforms segments; passes every other item on in order."""

    def __init__(self, *, upstream: _Stage, ctx: ReportContext, batch_rows: int, stop: threading.Event) -> None:
        super().__init__(name="report-parse", stop=stop)
        self._upstream = upstream
        self._ctx = ctx
        self._batch_rows = batch_rows

    def run(self) -> None:
        try:
            while True:
                item = self._upstream.next_item()
                if isinstance(item, _SegmentReady):
                    for parsed in self._parse(item.file_index, item.segment):
                        self._put(parsed)
                    continue
                self._put(item)
                if item is _DONE or isinstance(item, _Failed):
                    return
        except _Stopped:
            return
        except BaseException as exc:
            self._fail(exc)

    def _parse(self, file_index: int, segment: Segment) -> Iterator[_Parsed]:
        if segment.rejects:  # a line no parser may see (archive.py): quarantined as it is
            yield _Parsed(file_index, transform_records(empty_records(), self._ctx), list(segment.rejects))
            return
        for records, rejects in self._records(segment):
            if self._ctx.entity_id is None:
                self._learn_entity(records)
            result = transform_records(records, self._ctx)
            if result.rejects.height:
                numbers = set(result.rejects["line_number"].to_list())
                texts = line_texts(segment.data, numbers, first_line=segment.first_line)
                rejects = rejects + [Reject(n, reason, texts.get(n)) for n, reason in result.rejects.iter_rows()]
            yield _Parsed(file_index, result, rejects)

    def _learn_entity(self, records: pl.DataFrame) -> None:
        """A scope the warehouse holds nothing of yet is the entity of the report's first record
        that names one; records of any other entity are rejected from then on."""
        ids = records[ENTITY_ID_FIELDS[self._ctx.scope]].drop_nulls()
        if ids.len():
            self._ctx = replace(self._ctx, entity_id=ids[0])

    def _records(self, segment: Segment) -> Iterator[tuple[pl.DataFrame, list[Reject]]]:
        dialect = self._ctx.dialect
        if self._ctx.level == "user":
            yield from read_segment(
                segment.data, first_line=segment.first_line, lines=segment.lines, batch_rows=self._batch_rows, dialect=dialect
            )
            return
        # Aggregate files are a line or a 28-day wrapper: tiny, and the line path reads both.
        yield from read_lines(io.BytesIO(segment.data), first_line=segment.first_line, batch_rows=self._batch_rows, dialect=dialect)


@dataclass
class _FileTally:
    records: int = 0
    breakdowns: int = 0
    agent_activity: int = 0
    quarantined: int = 0


def _quarantine_frame(ctx: ReportContext, rejects: list[Reject], *, file_index: int, archive_path: str, link: str) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "line_number": [r.line_number for r in rejects],
            "reason": [r.reason for r in rejects],
            "line_text": [r.line_text for r in rejects],
        },
        schema={"line_number": pl.Int64(), "reason": pl.String(), "line_text": pl.String()},
    ).with_columns(
        pl.lit(ctx.scope).alias("scope"),
        pl.lit(ctx.scope_name).alias("scope_name"),
        pl.lit(ctx.report_kind).alias("report_kind"),
        pl.lit(ctx.level).alias("level"),
        pl.lit(ctx.start_day).alias("report_start_day"),
        pl.lit(ctx.end_day).alias("report_end_day"),
        pl.lit(file_index, dtype=pl.Int32()).alias("file_index"),
        pl.lit(archive_path).alias("archive_path"),
        pl.lit(link).alias("link"),
        pl.lit(ctx.fetched_at, dtype=pl.Datetime("us", "UTC")).alias("fetched_at"),
    )


class _Lander:
    """The calling thread's side: land parsed rows in the open transaction, keep the tallies."""

    def __init__(self, *, landing: ReportLanding, ctx: ReportContext) -> None:
        self._landing = landing
        self._ctx = ctx
        self._totals_table = "user_daily_totals" if ctx.level == "user" else "daily_totals"
        self.tallies: dict[int, _FileTally] = {}
        self.days: dict[int, set[date]] = {}
        self.agents: dict[int, set[str]] = {}
        # Quarantine rows wait for the file's archive path, known when the file completes.
        self._rejects: dict[int, list[Reject]] = {}

    def restart(self, file_index: int) -> None:
        try:
            self._landing.discard_file(file_index=file_index)
        except SharedRecordKeys as exc:
            raise IngestError(f"cannot fetch a report file again: {exc}; run the report again") from None
        for book in (self.tallies, self.days, self.agents, self._rejects):
            book.pop(file_index, None)

    def land(self, parsed: _Parsed) -> None:
        file_index, result = parsed.file_index, parsed.result
        self._landing.insert(table=self._totals_table, frame=result.totals, file_index=file_index)
        self._landing.insert(table="breakdowns", frame=result.breakdowns, file_index=file_index)
        self._landing.insert(table="agent_activity", frame=result.agent_activity, file_index=file_index)
        tally = self.tallies.setdefault(file_index, _FileTally())
        tally.records += result.totals.height
        tally.breakdowns += result.breakdowns.height
        tally.agent_activity += result.agent_activity.height
        tally.quarantined += len(parsed.rejects)
        self._rejects.setdefault(file_index, []).extend(parsed.rejects)
        self.days.setdefault(file_index, set()).update(result.totals["day"].unique().to_list())
        self.agents.setdefault(file_index, set()).update(result.agent_activity["agent_id"].unique().to_list())

    def file_done(self, done: _FileDone) -> None:
        tally = self.tallies.setdefault(done.file_index, _FileTally())
        archive_path = str(done.archived.path)
        rejects = self._rejects.pop(done.file_index, [])
        if rejects:
            self._landing.insert(
                table="quarantine",
                frame=_quarantine_frame(self._ctx, rejects, file_index=done.file_index, archive_path=archive_path, link=done.link),
                file_index=done.file_index,
            )
        ctx = self._ctx
        row = pl.DataFrame(
            {
                "scope": [ctx.scope],
                "scope_name": [ctx.scope_name],
                "report_kind": [ctx.report_kind],
                "level": [ctx.level],
                "report_start_day": [ctx.start_day],
                "report_end_day": [ctx.end_day],
                "file_index": [done.file_index],
                "bytes": [done.archived.bytes],
                "sha256": [done.archived.sha256],
                "records": [tally.records],
                "quarantined": [tally.quarantined],
                "archive_path": [archive_path],
                "link": [done.link],
                "fetched_at": [ctx.fetched_at],
            },
            schema_overrides={"file_index": pl.Int32(), "fetched_at": pl.Datetime("us", "UTC")},
        )
        self._landing.insert(table="report_files", frame=row, file_index=done.file_index)


def ingest_report(
    *,
    client: ServiceClient,
    ref: ReportRef,
    conn: duckdb.DuckDBPyConnection,
    raw_dir: Path,
    batch_rows: int = DEFAULT_BATCH_ROWS,
) -> IngestResult:
    """Fetch, archive, parse and land one report; its days are replaced in one transaction.

    Returns `available=False` (nothing written) when the platform has no report for the day yet.
    """
    metadata = fetch_report_metadata(client, ref)
    if metadata is None:
        return IngestResult(available=False)
    run_sql(conn, "ingest/limit_resources.sql")
    # Looked up before the report's days are replaced, so a re-run keeps the id it had.
    known = run_sql(conn, "ingest/select_scope_entity_id.sql", scope=ref.scope, scope_name=ref.scope_name) or run_sql(
        conn, "ingest/select_scope_entity_id_from_users.sql", scope=ref.scope, scope_name=ref.scope_name
    )
    ctx = ReportContext(
        scope=ref.scope,
        scope_name=ref.scope_name,
        level=ref.level,
        report_kind=ref.kind,
        start_day=metadata.start_day,
        end_day=metadata.end_day,
        fetched_at=datetime.now(timezone.utc),
        dialect=client.dialect.name,
        entity_id=known[0][0] if known else None,
    )
    raw_dir.mkdir(parents=True, exist_ok=True)
    remove_dead_parts(raw_dir)
    key = ReportKey(
        scope=ref.scope,
        scope_name=ref.scope_name,
        report_kind=ref.kind,
        level=ref.level,
        start_day=metadata.start_day,
        end_day=metadata.end_day,
    )
    stop = threading.Event()
    downloader = _Downloader(client=client, metadata=metadata, raw_dir=raw_dir, batch_rows=batch_rows, stop=stop)
    parser = _ParseWorker(upstream=downloader, ctx=ctx, batch_rows=batch_rows, stop=stop)
    done: dict[int, _FileDone] = {}
    restarts = 0
    try:
        with land_report(conn, key=key) as landing:
            lander = _Lander(landing=landing, ctx=ctx)
            downloader.start()
            parser.start()
            while True:
                item = parser.next_item()
                if item is _DONE:
                    break
                if isinstance(item, _Failed):
                    raise item.error
                if isinstance(item, _Parsed):
                    lander.land(item)
                elif isinstance(item, _Restart):
                    restarts += 1
                    lander.restart(item.file_index)
                elif isinstance(item, _FileDone):
                    lander.file_done(item)
                    done[item.file_index] = item
            if len(done) != len(metadata.links):
                raise IngestError(f"{len(done)} of {len(metadata.links)} report files completed")
    finally:
        stop.set()
        for stage in (downloader, parser):
            if stage.is_alive():
                stage.join()
    tallies = lander.tallies.values()
    totals_table = "core.user_daily_totals" if ref.level == "user" else "core.daily_totals"
    quarantined = sum(t.quarantined for t in tallies)
    return IngestResult(
        available=True,
        rows={
            totals_table: sum(t.records for t in tallies),
            "core.breakdowns": sum(t.breakdowns for t in tallies),
            "core.agent_activity": sum(t.agent_activity for t in tallies),
            "raw.quarantine": quarantined,
        },
        files=len(done),
        bytes=sum(d.archived.bytes for d in done.values()),
        quarantined=quarantined,
        days=tuple(sorted(set().union(*lander.days.values()))),
        agents=tuple(sorted(set().union(*lander.agents.values()))),
        restarts=restarts,
        checks=tuple(landing.checks),
    )
