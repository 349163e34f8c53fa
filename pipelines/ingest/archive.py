"""One report file's bytes -> a zstd archive (with sha256) and line-aligned segments.

The archive is written under a temporary name and renamed when the file is complete; its
final name carries the sha256, so fetching identical bytes again lands on the same path.
Segments are in-memory NDJSON pieces of about `batch_rows` lines, handed to the parser while
the download goes on, so parsing overlaps the network and memory stays bounded by the few
segments in flight (nothing is written twice to disk, and nothing is left behind by a kill).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import zstandard

_ZSTD_LEVEL = 1


@dataclass(frozen=True)
class Segment:
    data: bytes
    first_line: int
    lines: int


@dataclass(frozen=True)
class ArchivedFile:
    path: Path
    bytes: int
    sha256: str
    lines: int


class _SegmentWriter:
    """Cuts the stream into line-aligned pieces of about `batch_rows` lines, kept in memory."""

    def __init__(self, *, batch_rows: int, emit: Callable[[Segment], None]) -> None:
        self._batch_rows = batch_rows
        self._emit = emit
        self._next_line = 1
        self._start()

    def _start(self) -> None:
        self._pieces: list[bytes] = []
        self._lines = 0
        self._last_byte = b"\n"

    def write(self, data: bytes) -> None:
        while data:
            newlines = data.count(b"\n")
            if self._lines + newlines < self._batch_rows:
                self._append(data, newlines)
                return
            # Cut after the last newline of this chunk: segments end on a line boundary.
            cut = data.rindex(b"\n") + 1
            self._append(data[:cut], newlines)
            self._flush()
            data = data[cut:]

    def _append(self, data: bytes, newlines: int) -> None:
        if not data:
            return
        self._pieces.append(data)
        self._lines += newlines
        self._last_byte = data[-1:]

    def _flush(self) -> None:
        if self._pieces:
            # A last line without its newline is still a line.
            lines = self._lines + (0 if self._last_byte == b"\n" else 1)
            self._emit(Segment(b"".join(self._pieces), self._next_line, lines))
            self._next_line += lines
        self._start()

    @property
    def lines_written(self) -> int:
        return self._next_line - 1

    def close(self) -> None:
        self._flush()


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
