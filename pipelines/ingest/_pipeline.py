"""The threads of one report's ingest: download+archive, then parse+transform, then the caller.

Three stages joined by small bounded queues: a downloader thread streams file after file into
the archive and cuts it into in-memory segments; a parser thread parses and transforms each
segment; the calling thread takes the results (`run_stages`). So network and archiving,
parsing and writing run at once (PyArrow, Polars and DuckDB release the GIL). An expired link
refreshes the metadata and restarts that file; a cut download restarts it; either way the
caller is told (`Restart`) before the file's rows come again.
"""

from __future__ import annotations

import io
import queue
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, replace
from pathlib import Path

import polars as pl

from pipelines.ingest._download import download_report
from pipelines.ingest.archive import ArchivedFile, Segment
from pipelines.ingest.errors import IngestError
from pipelines.ingest.parse import Reject, line_texts, read_lines, read_segment
from pipelines.service import ReportMetadata, ServiceClient
from pipelines.transform import Provenance, Transformed, empty_records, transform_records
from pipelines.transform.repeats import entries_listed_twice
from pipelines.transform.schema import ENTITY_ID_FIELDS

_QUEUE_ITEMS = 1  # segments in flight per stage: bounds memory (each is ~15 MB of NDJSON)


@dataclass(frozen=True)
class Restart:
    """The file is fetched again: what it landed so far is to be taken back out."""

    file_index: int


@dataclass(frozen=True)
class FileDone:
    file_index: int
    archived: ArchivedFile
    link: str  # redacted: no signed query


@dataclass(frozen=True)
class Parsed:
    file_index: int
    result: Transformed
    rejects: list[Reject]


Item = Restart | FileDone | Parsed


@dataclass(frozen=True)
class _SegmentReady:
    file_index: int
    segment: Segment


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
        self.items: queue.Queue[object] = queue.Queue(maxsize=_QUEUE_ITEMS)
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
        with suppress(_Stopped):
            self._put(_Failed(error))

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


class _Downloader(_Stage):
    def __init__(
        self, *, client: ServiceClient, metadata: ReportMetadata, raw_dir: Path, batch_rows: int, stop: threading.Event
    ) -> None:
        super().__init__(name="report-download", stop=stop)
        self._client = client
        self._metadata = metadata
        self._raw_dir = raw_dir
        self._batch_rows = batch_rows

    def _check(self) -> None:
        if self.stop.is_set():
            raise _Stopped

    def run(self) -> None:
        try:
            download_report(
                self._client,
                self._metadata,
                raw_dir=self._raw_dir,
                batch_rows=self._batch_rows,
                on_segment=lambda index, segment: self._put(_SegmentReady(index, segment)),
                on_restart=lambda index: self._put(Restart(index)),
                on_file=lambda index, archived, link: self._put(FileDone(index, archived, link)),
                check=self._check,
            )
            self._put(_DONE)
        except _Stopped:
            return
        except BaseException as exc:  # handed downstream; the calling thread raises it
            self._fail(exc)


class _ParseWorker(_Stage):
    """Parses and transforms segments; passes every other item on in order."""

    def __init__(
        self, *, upstream: _Stage, prov: Provenance, batch_rows: int, stop: threading.Event, screen_entries: bool
    ) -> None:
        super().__init__(name="report-parse", stop=stop)
        self._upstream = upstream
        self._prov = prov
        self._batch_rows = batch_rows
        self._screen_entries = screen_entries

    def run(self) -> None:
        try:
            while True:
                item = self._upstream.next_item()
                if isinstance(item, _SegmentReady):
                    # Parsed whole before it is handed on, and the segment let go: while this
                    # thread waits for the landing it holds only the rows, not the segment's
                    # bytes and parsed records too (~27 MB at 10,000 lines).
                    results = list(self._parse(item.file_index, item.segment))
                    del item
                    while results:
                        self._put(results.pop(0))
                    continue
                self._put(item)
                if item is _DONE or isinstance(item, _Failed):
                    return
        except _Stopped:
            return
        except BaseException as exc:
            self._fail(exc)

    def _parse(self, file_index: int, segment: Segment) -> Iterator[Parsed]:
        if segment.rejects:  # a line no parser may see (archive.py): quarantined as it is
            yield Parsed(file_index, transform_records(empty_records(), self._prov), list(segment.rejects))
            return
        for records, rejects in self._records(segment):
            if self._prov.entity_id is None:
                self._learn_entity(records)
            result = transform_records(records, self._prov)
            if self._screen_entries:
                result, twice = entries_listed_twice(result, level=self._prov.ref.level)
                if twice:
                    result = replace(
                        result,
                        rejects=pl.concat(
                            [result.rejects, pl.DataFrame(twice, schema=result.rejects.schema, orient="row")]
                        ),
                    )
            if result.rejects.height:
                numbers = set(result.rejects["line_number"].to_list())
                texts = line_texts(segment.data, numbers, first_line=segment.first_line)
                rejects = rejects + [Reject(n, reason, texts.get(n)) for n, reason in result.rejects.iter_rows()]
            yield Parsed(file_index, result, rejects)

    def _learn_entity(self, records: pl.DataFrame) -> None:
        """A scope the warehouse holds nothing of yet is the entity of the report's first record
        that names one; records of any other entity are rejected from then on."""
        ids = records[ENTITY_ID_FIELDS[self._prov.ref.scope]].drop_nulls()
        if ids.len():
            self._prov = replace(self._prov, entity_id=ids[0])

    def _records(self, segment: Segment) -> Iterator[tuple[pl.DataFrame, list[Reject]]]:
        dialect = self._prov.dialect
        if self._prov.ref.level == "user":
            yield from read_segment(
                segment.data,
                first_line=segment.first_line,
                lines=segment.lines,
                batch_rows=self._batch_rows,
                dialect=dialect,
            )
            return
        # Aggregate files are a line or a 28-day wrapper: tiny, and the line path reads both.
        yield from read_lines(
            io.BytesIO(segment.data), first_line=segment.first_line, batch_rows=self._batch_rows, dialect=dialect
        )


def _items(last: _Stage) -> Iterator[Item]:
    while True:
        item = last.next_item()
        if item is _DONE:
            return
        if isinstance(item, _Failed):
            raise item.error
        assert isinstance(item, Restart | FileDone | Parsed)
        yield item


@contextmanager
def run_stages(
    *,
    client: ServiceClient,
    metadata: ReportMetadata,
    raw_dir: Path,
    prov: Provenance,
    batch_rows: int,
    screen_entries: bool = False,
) -> Iterator[Iterator[Item]]:
    """Start the download and parse threads; the block reads their items, in order, to the end.

    A stage's failure is raised from the iteration; leaving the block stops both threads and
    waits for them, so none outlives the report. `screen_entries`: records whose arrays list an
    entry twice are rejected (transform/repeats.py `entries_listed_twice`).
    """
    stop = threading.Event()
    downloader = _Downloader(client=client, metadata=metadata, raw_dir=raw_dir, batch_rows=batch_rows, stop=stop)
    parser = _ParseWorker(
        upstream=downloader, prov=prov, batch_rows=batch_rows, stop=stop, screen_entries=screen_entries
    )
    try:
        downloader.start()
        parser.start()
        yield _items(parser)
    finally:
        stop.set()
        for stage in (downloader, parser):
            if stage.is_alive():
                stage.join()
