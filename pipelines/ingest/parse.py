"""NDJSON report files -> frames of parsed records (schema.record_dtype + _line + _extra).

Two paths. The fast one (`_fast.py`) is PyArrow's JSON reader, strict about types and
all-or-nothing for what it is given, so `read_segment` halves a refused segment until the
pieces around the bad lines are small, and the line path (`_lines.py`) reads those: bad lines
become rejects, the good ones still land. Both read each dialect under its wire names and hand
on the canonical ones (`_wire.py`).
"""

from __future__ import annotations

import io
from collections.abc import Iterator

import polars as pl

from pipelines.ingest._fast import FastPathRefused, read_fast
from pipelines.ingest._lines import LINE_TEXT_LIMIT, Reject, line_texts, read_lines, truncate_line

__all__ = [
    "LINE_PATH_LINES",
    "LINE_TEXT_LIMIT",
    "FastPathRefused",
    "Reject",
    "line_texts",
    "read_fast",
    "read_lines",
    "read_segment",
    "truncate_line",
]

# A refused piece is halved until it is this small; only then does the line path (about nine
# times slower) read it, so one bad line costs a few hundred lines of slow parsing, not 10,000.
LINE_PATH_LINES = 500


def read_segment(
    data: bytes, *, first_line: int, lines: int, batch_rows: int, dialect: str
) -> Iterator[tuple[pl.DataFrame, list[Reject]]]:
    """Parse a segment of user-level NDJSON: the fast path where it can, the line path for
    the small pieces around what it refuses. Yields (records, rejects) in line order."""
    try:
        frame = read_fast(data, first_line=first_line, lines=lines, dialect=dialect)
    except FastPathRefused:
        cut = _middle_line_end(data)
        if lines <= LINE_PATH_LINES or cut is None:
            yield from read_lines(io.BytesIO(data), first_line=first_line, batch_rows=batch_rows, dialect=dialect)
            return
        head_lines = data.count(b"\n", 0, cut)
        rest = lines - head_lines
        yield from read_segment(
            data[:cut], first_line=first_line, lines=head_lines, batch_rows=batch_rows, dialect=dialect
        )
        yield from read_segment(
            data[cut:], first_line=first_line + head_lines, lines=rest, batch_rows=batch_rows, dialect=dialect
        )
        return
    yield frame, []


def _middle_line_end(data: bytes) -> int | None:
    """Offset just past the newline nearest the middle, or None if no such cut splits the data."""
    middle = len(data) // 2
    after = data.find(b"\n", middle)
    cut = after + 1 if after != -1 else data.rfind(b"\n", 0, middle) + 1
    return cut if 0 < cut < len(data) else None
