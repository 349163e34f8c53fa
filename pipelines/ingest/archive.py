"""One report file's bytes -> a zstd archive (with sha256) and line-aligned segments.

The archive is written under a temporary name and renamed when the file is complete; its
final name carries the sha256, so fetching identical bytes again lands on the same path.
Segments are in-memory NDJSON pieces of about `batch_rows` lines, handed to the parser while
the download goes on, so parsing overlaps the network and memory stays bounded by the few
segments in flight (nothing is written twice to disk). A kill leaves at most a `.part` file,
which the next ingest removes once its process is gone (`remove_dead_parts`).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import zstandard

from pipelines._process import pid_alive
from pipelines.ingest.parse import LINE_TEXT_LIMIT, Reject, truncate_line
from pipelines.ingest.screen import line_problems, line_spans

_ZSTD_LEVEL = 1
# The most one line may hold. The largest real lines are 28-day aggregate wrappers (28 days
# of totals with their breakdowns, about 2 MB from the emulator); user lines are about 2 KB.
# A longer line is cut off while it streams (only its first LINE_TEXT_LIMIT bytes are kept,
# for its quarantine row), so one line never costs more memory than this, whatever it holds.
MAX_LINE_BYTES = 8 << 20
# A segment is also cut once it holds this many bytes, so lines near the limit cannot make a
# segment of `batch_rows` lines huge; ordinary segments (~18 MB at 10,000 lines) are cut by
# their line count first.
SEGMENT_BYTES = 32 << 20
# A file that starts with one of these is compressed, not NDJSON: named once, not line by line.
_COMPRESSED = {
    b"\x1f\x8b": "gzip",
    b"\x28\xb5\x2f\xfd": "zstd",
    b"BZh": "bzip2",
    b"\xfd7zXZ\x00": "xz",
    b"PK\x03\x04": "zip",
}
_MAGIC_BYTES = max(len(magic) for magic in _COMPRESSED)
# `.NNNN.<pid>.part`: an archive being written by process <pid> (pid_max is at most 2**22).
_PART = re.compile(r"\.\d{4}\.(\d{1,7})\.part")


@dataclass(frozen=True)
class Segment:
    data: bytes
    first_line: int
    lines: int
    # A line quarantined before any parser sees it (too long, or a compressed file); such a
    # segment holds nothing else (`data` is empty).
    rejects: tuple[Reject, ...] = ()


@dataclass(frozen=True)
class ArchivedFile:
    path: Path
    bytes: int
    sha256: str
    lines: int


@dataclass
class _LongLine:
    """A line over the limit, as it streams past: its number, its first bytes and its length."""

    number: int
    head: bytes = b""
    length: int = 0

    def add(self, data: bytes) -> None:
        if len(self.head) < LINE_TEXT_LIMIT:
            self.head += data[: LINE_TEXT_LIMIT - len(self.head)]
        self.length += len(data)


class _SegmentWriter:
    """Cuts the stream into line-aligned pieces of about `batch_rows` lines, kept in memory.

    A line longer than `max_line_bytes` is left out of them and becomes a reject of its own;
    a compressed file becomes one reject and nothing else.
    """

    def __init__(
        self, *, batch_rows: int, emit: Callable[[Segment], None], max_line_bytes: int = MAX_LINE_BYTES
    ) -> None:
        self._batch_rows = batch_rows
        self._emit = emit
        self._max_line_bytes = max_line_bytes
        self._next_line = 1
        self._opening: bytes | None = b""  # the file's first bytes, until they show it is not compressed
        self._compressed = False
        self._long: _LongLine | None = None
        self._start()

    def _start(self) -> None:
        self._pieces: list[bytes] = []
        self._lines = 0
        self._bytes = 0
        self._tail = 0  # bytes of the unfinished last line at the end of the pieces

    def write(self, data: bytes) -> None:
        if self._compressed:
            return
        if self._opening is not None:
            self._opening += data
            if len(self._opening) < _MAGIC_BYTES:
                return
            data, self._opening = self._opening, None
            if self._refuse_compressed(data):
                return
        if self._long is None and self._tail + len(data) <= self._max_line_bytes:
            self._write_lines(data)  # no line here can go over the limit
        else:
            self._write_guarded(data)

    def _refuse_compressed(self, data: bytes) -> bool:
        for magic, name in _COMPRESSED.items():
            if data.startswith(magic):
                reason = (
                    f"the file is {name}-compressed (it starts with bytes {magic.hex(' ')}), not NDJSON: "
                    "none of its lines were read; the archive keeps it as it came"
                )
                self._emit(Segment(b"", 1, 1, (Reject(1, reason, None),)))
                self._next_line, self._compressed = 2, True
                return True
        return False

    def _write_lines(self, data: bytes) -> None:
        while data:
            newlines = data.count(b"\n")
            if (self._lines + newlines < self._batch_rows and self._bytes + len(data) < SEGMENT_BYTES) or not newlines:
                self._append(data, newlines)
                return
            # Cut after the last newline of this chunk: segments end on a line boundary.
            cut = data.rindex(b"\n") + 1
            self._append(data[:cut], newlines)
            self._flush()
            data = data[cut:]

    def _write_guarded(self, data: bytes) -> None:
        """Line by line: a line that goes over the limit is taken out and only counted from there."""
        pos = 0
        while pos < len(data):
            newline = data.find(b"\n", pos)
            stop = len(data) if newline == -1 else newline
            if self._long is None and self._tail + stop - pos > self._max_line_bytes:
                self._begin_long()
            if self._long is None:
                self._write_lines(data[pos : stop + 1])
            else:
                self._long.add(data[pos:stop])
                if newline != -1:
                    self._end_long()
            pos = stop + 1

    def _begin_long(self) -> None:
        """The unfinished last line is over the limit: out of the pieces, which are emitted."""
        parts, need = [], self._tail
        while need:
            piece = self._pieces.pop()
            if len(piece) > need:
                self._pieces.append(piece[:-need])
                piece = piece[-need:]
            parts.append(piece)
            need -= len(piece)
        self._bytes -= self._tail
        self._tail = 0
        self._flush()
        self._long = _LongLine(self._next_line)
        for piece in reversed(parts):
            self._long.add(piece)

    def _end_long(self) -> None:
        assert self._long is not None
        long, self._long = self._long, None
        reason = (
            f"line too long: {long.length:,} bytes, over the limit of {self._max_line_bytes:,} bytes for one line; "
            "not parsed (the archive keeps it whole)"
        )
        self._emit(Segment(b"", long.number, 1, (Reject(long.number, reason, truncate_line(long.head)),)))
        self._next_line += 1

    def _append(self, data: bytes, newlines: int) -> None:
        if not data:
            return
        self._pieces.append(data)
        self._lines += newlines
        self._bytes += len(data)
        self._tail = len(data) - data.rindex(b"\n") - 1 if newlines else self._tail + len(data)

    def _flush(self) -> None:
        pieces, lines = self._pieces, self._lines + (1 if self._tail else 0)  # a last line without its newline
        # Reset before emitting: `emit` waits while the parser is busy, and the pieces, joined
        # into the segment, would be held twice meanwhile (~17 MB at 10,000 lines).
        self._start()
        if pieces:
            data = b"".join(pieces)
            pieces.clear()
            self._emit_screened(data, lines)
            self._next_line += lines

    def _emit_screened(self, data: bytes, lines: int) -> None:
        """Emit the lines, each one no parser may see (screen.py) as a reject of its own."""
        found = line_problems(data)
        if not found:
            self._emit(Segment(data, self._next_line, lines))
            return
        run_start, run_first = 0, 0  # where the run of good lines before the next bad one starts
        last = max(found)
        for index, (start, end) in enumerate(line_spans(data)):
            if index not in found:
                continue
            if index > run_first:
                self._emit(Segment(data[run_start:start], self._next_line + run_first, index - run_first))
            number = self._next_line + index
            reject = Reject(number, found[index], truncate_line(data[start:end].rstrip(b"\r")))
            self._emit(Segment(b"", number, 1, (reject,)))
            run_start, run_first = end + 1, index + 1
            if index == last:
                break
        if run_first < lines:
            self._emit(Segment(data[run_start:], self._next_line + run_first, lines - run_first))

    @property
    def lines_written(self) -> int:
        return self._next_line - 1

    def close(self) -> None:
        if self._opening is not None:  # a file shorter than the longest magic number
            data, self._opening = self._opening, None
            if data and not self._refuse_compressed(data):
                self.write(data)
        if self._long is not None:
            self._end_long()
        self._flush()


def report_dir(
    raw_dir: Path, *, scope: str, scope_name: str, level: str, kind: str, start_day: date, end_day: date
) -> Path:
    """Where a report's files (a seat listing's too) are archived:
    `RAW_DIR/<scope>/<name>/<level>-<kind>/<start>_<end>/`."""
    return raw_dir / scope / scope_name / f"{level}-{kind}" / f"{start_day.isoformat()}_{end_day.isoformat()}"


def remove_dead_parts(raw_dir: Path) -> list[Path]:
    """Remove the `.part` archives under `raw_dir` whose process is gone (killed mid-file).

    The pid is in the name; a live process's file is never touched, whoever it belongs to.
    """
    removed = []
    for path in raw_dir.rglob(".*.part"):
        match = _PART.fullmatch(path.name)
        if match and not pid_alive(int(match.group(1))):
            path.unlink(missing_ok=True)
            removed.append(path)
    return removed


def archive_stream(
    chunks: Iterable[bytes],
    *,
    archive_dir: Path,
    stem: str,
    batch_rows: int,
    emit: Callable[[Segment], None],
) -> ArchivedFile:
    """Consume `chunks`: compress to the archive, hash, and emit segments as they fill.

    If `chunks` raises, the partial archive is removed, the open segment dropped, and the error
    propagates (segments already emitted belong to the caller).
    """
    archive_dir.mkdir(parents=True, exist_ok=True)
    temp = archive_dir / f".{stem}.{os.getpid()}.part"
    digest = hashlib.sha256()
    total = 0
    segments = _SegmentWriter(batch_rows=batch_rows, emit=emit)
    try:
        with temp.open("wb") as raw, zstandard.ZstdCompressor(level=_ZSTD_LEVEL).stream_writer(raw) as packed:
            for chunk in chunks:
                digest.update(chunk)
                packed.write(chunk)
                segments.write(chunk)
                total += len(chunk)
        segments.close()
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    sha = digest.hexdigest()
    final = archive_dir / f"{stem}-{sha[:16]}.ndjson.zst"
    temp.replace(final)
    return ArchivedFile(path=final, bytes=total, sha256=sha, lines=segments.lines_written)
