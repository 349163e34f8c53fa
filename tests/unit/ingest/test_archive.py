"""The archive cuts a report into segments on the raw bytes: a line too long is cut while streaming, a
compressed file is one reject, lines the screen refuses are cut out of their segment."""

import gzip
import subprocess
import sys
from pathlib import Path

import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from pipelines.ingest.archive import (
    MAX_LINE_BYTES,
    SEGMENT_BYTES,
    Segment,
    _SegmentWriter,
    archive_stream,
    remove_dead_parts,
)


def _segments(chunks: list[bytes], *, max_line_bytes: int, batch_rows: int = 3) -> tuple[list[Segment], int]:
    out: list[Segment] = []
    writer = _SegmentWriter(batch_rows=batch_rows, emit=out.append, max_line_bytes=max_line_bytes)
    for chunk in chunks:
        writer.write(chunk)
    writer.close()
    return out, writer.lines_written


def _split(body: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(body) + 1) for c in cuts})
    return [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True) if b > a]


@settings(max_examples=150, deadline=None)
@given(
    lengths=st.lists(st.integers(0, 300), min_size=1, max_size=12),
    cuts=st.lists(st.integers(0, 10_000), max_size=20),
    trailing_newline=st.booleans(),
)
def test_every_line_is_segmented_once_or_cut_off_as_too_long_however_the_stream_is_chunked(
    lengths, cuts, trailing_newline
):
    limit = 100
    lines = [bytes([97 + n % 26]) * length for n, length in enumerate(lengths)]
    body = b"\n".join(lines) + (b"\n" if trailing_newline else b"")
    segments, written = _segments(_split(body, cuts), max_line_bytes=limit)
    seen: dict[int, object] = {}
    for segment in segments:
        if segment.rejects:
            (reject,) = segment.rejects
            assert (segment.data, segment.lines, reject.line_number) == (b"", 1, segment.first_line)
            seen[reject.line_number] = (reject.reason, reject.line_text)
            continue
        texts = segment.data.split(b"\n")
        texts = texts[:-1] if segment.data.endswith(b"\n") else texts
        assert len(texts) == segment.lines
        assert all(len(text) <= limit for text in texts)  # an over-long line never sits in a segment
        seen.update(zip(range(segment.first_line, segment.first_line + segment.lines), texts, strict=True))
    # A last line of no bytes is no line.
    expected_lines = lines if trailing_newline or lines[-1] else lines[:-1]
    expected = {
        number: (
            (
                f"line too long: {len(line):,} bytes, over the limit of {limit:,} bytes for one line; "
                "not parsed (the archive keeps it whole)",
                line.decode(),
            )
            if len(line) > limit
            else line
        )
        for number, line in enumerate(expected_lines, start=1)
    }
    assert seen == expected
    assert written == len(expected_lines)


def test_a_long_line_keeps_only_its_first_2000_bytes_while_the_archive_keeps_it_whole(tmp_path: Path):
    long_line = b'{"user_id": 1, "blob": "' + b"x" * MAX_LINE_BYTES + b'"}'
    body = b'{"a": 1}\n' + long_line + b'\n{"b": 2}\n'
    segments: list[Segment] = []
    archived = archive_stream(
        iter(_split(body, list(range(1000, len(body), 1 << 20)))),
        archive_dir=tmp_path,
        stem="0000",
        batch_rows=10,
        emit=segments.append,
    )
    assert [(s.first_line, s.lines, s.data) for s in segments if not s.rejects] == [
        (1, 1, b'{"a": 1}\n'),
        (3, 1, b'{"b": 2}\n'),
    ]
    (reject,) = [r for s in segments for r in s.rejects]
    assert reject.line_number == 2 and reject.line_text == long_line[:2000].decode()
    assert reject.reason.startswith(
        f"line too long: {len(long_line):,} bytes, over the limit of {MAX_LINE_BYTES:,} bytes"
    )
    assert zstandard.ZstdDecompressor().decompress(archived.path.read_bytes(), max_output_size=len(body)) == body


def test_lines_near_the_limit_are_cut_into_segments_by_bytes_not_only_by_count():
    line = b"[" + b"1," * ((MAX_LINE_BYTES - 8) // 2) + b"1]\n"
    chunk = 1 << 20
    body = line * 12
    segments, written = _segments(
        [body[i : i + chunk] for i in range(0, len(body), chunk)], max_line_bytes=MAX_LINE_BYTES, batch_rows=10_000
    )
    assert written == 12 and not [s for s in segments if s.rejects]
    assert sum(s.lines for s in segments) == 12
    assert max(len(s.data) for s in segments) <= SEGMENT_BYTES + MAX_LINE_BYTES + 1  # the line that crossed the mark


@pytest.mark.parametrize(
    ("body", "name"),
    [
        (gzip.compress(b'{"a": 1}\n' * 50), "gzip"),
        (zstandard.ZstdCompressor().compress(b'{"a": 1}\n' * 50), "zstd"),
        (b"BZh91AY&SY" + bytes(range(256)), "bzip2"),
        (b"\xfd7zXZ\x00\x00\x04" + bytes(range(256)), "xz"),
        (b"PK\x03\x04" + bytes(range(256)), "zip"),
    ],
    ids=["gzip", "zstd", "bzip2", "xz", "zip"],  # gzip's bytes hold the time: every process must name it alike
)
def test_a_compressed_file_is_one_reject_naming_its_compression_not_one_per_line(body: bytes, name: str):
    segments, written = _segments([body[:1], body[1:3], body[3:]], max_line_bytes=1000)
    (segment,) = segments
    (reject,) = segment.rejects
    assert reject.line_number == 1 and written == 1
    assert reject.reason.startswith(f"the file is {name}-compressed (it starts with bytes ")


def test_bad_lines_are_cut_out_of_their_segment_and_the_lines_around_them_keep_their_numbers():
    lines = [b'{"n": 1}', b"[" * 100, b'{"n": 3}', b'{"n": 4}', b'{"x": "\\ud800"}', b'{"n": 6}']
    segments, _ = _segments([b"\n".join(lines)], max_line_bytes=1000, batch_rows=100)
    assert [(s.first_line, s.lines, s.data, [r.line_number for r in s.rejects]) for s in segments] == [
        (1, 1, b'{"n": 1}\n', []),
        (2, 1, b"", [2]),
        (3, 2, b'{"n": 3}\n{"n": 4}\n', []),
        (5, 1, b"", [5]),
        (6, 1, b'{"n": 6}', []),
    ]


def test_only_part_files_of_processes_that_are_gone_are_removed(tmp_path: Path):
    finished = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True, check=True
    )
    dead = int(finished.stdout)
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"]) as live:
        try:
            deep = tmp_path / "organization" / "acme" / "user-1-day" / "2026-11-01_2026-11-01"
            deep.mkdir(parents=True)
            dead_part = deep / f".0003.{dead}.part"
            live_part = deep / f".0003.{live.pid}.part"
            other = deep / f".notes.{dead}.part"  # not one of ours
            for path in (dead_part, live_part, other):
                path.write_bytes(b"partial")
            assert remove_dead_parts(tmp_path) == [dead_part]
            assert not dead_part.exists() and live_part.exists() and other.exists()
        finally:
            live.kill()
