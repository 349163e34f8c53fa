"""CPU of each part of report ingestion, one part at a time, on the cached benchmark report.

    .venv/bin/python -m benchmarks.parts [--users N]

Runs after `benchmarks.ingest` has generated the report under benchmarks/.cache/. Each part
runs on its own, single-threaded, over the same 10,000-line segments the pipeline uses:
hashing, archiving, the screen for lines no parser may see, the strict PyArrow reader the
pipeline uses, DuckDB's lenient reader for comparison, the known-column projection, the
transforms and the DuckDB inserts. Prints CPU
seconds per part. These are the figures behind "Where the time goes" in docs/ingest.md.
"""

from __future__ import annotations

import argparse
import hashlib
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.json as pa_json
import zstandard

from benchmarks.ingest import CACHE, DAY, USERS
from benchmarks.summary import record
from pipelines.ingest._fast import BLOCK_BYTES, read_fast
from pipelines.ingest._wire import wire_of
from pipelines.ingest.screen import line_problems
from pipelines.service import ReportRef
from pipelines.transform import Provenance, transform_records
from pipelines.warehouse import ReportSlice, land_report, migrate
from pipelines.warehouse.sql import run_sql

SEGMENT_LINES = 10_000


def _segments(path: Path) -> Iterator[tuple[bytes, int]]:
    with path.open("rb") as handle:
        lines: list[bytes] = []
        for line in handle:
            lines.append(line)
            if len(lines) == SEGMENT_LINES:
                yield b"".join(lines), len(lines)
                lines = []
        if lines:
            yield b"".join(lines), len(lines)


def _duckdb_type(t: pa.DataType) -> str:
    if pa.types.is_list(t):
        return _duckdb_type(t.value_type) + "[]"
    if pa.types.is_struct(t):
        return "STRUCT(" + ", ".join(f'"{f.name}" {_duckdb_type(f.type)}' for f in t) + ")"
    return {pa.string(): "VARCHAR", pa.int64(): "BIGINT", pa.bool_(): "BOOLEAN", pa.float64(): "DOUBLE"}[t]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--users", type=int, default=USERS)
    args = parser.parse_args()
    report = CACHE / f"users-{args.users}-x1.ndjson"
    if not report.exists():
        raise SystemExit(f"{report} is missing: run `python -m benchmarks.ingest --users {args.users}` first")

    ref = ReportRef("organization", "acme", "1-day", "user", DAY)
    prov = Provenance(ref=ref, start_day=DAY, end_day=DAY, fetched_at=datetime.now(UTC), dialect="service")
    wire = wire_of("service")
    columns = {f.name: _duckdb_type(f.type) for f in wire.arrow_schema}
    cpu: dict[str, float] = defaultdict(float)

    def timed(part: str, fn, *a, **k):
        started = time.process_time()
        result = fn(*a, **k)
        cpu[part] += time.process_time() - started
        return result

    with tempfile.TemporaryDirectory(prefix="bench-parts-") as work:
        lenient = duckdb.connect()
        lenient.execute("SET threads = 1")
        segment_file = Path(work) / "segment.ndjson"
        conn = duckdb.connect(str(Path(work) / "warehouse.duckdb"))
        migrate(conn)
        run_sql(conn, "ingest/limit_resources.sql")
        digest = hashlib.sha256()
        packer = zstandard.ZstdCompressor(level=1).compressobj()
        first_line = 1
        with land_report(conn, ReportSlice(ref, DAY, DAY)) as landing:
            for data, lines in _segments(report):
                timed("sha256", digest.update, data)
                timed("zstd level 1", packer.compress, data)
                timed("screen for lines no parser may see (UTF-8, lone surrogates, depth)", line_problems, data)
                options = pa_json.ReadOptions(block_size=BLOCK_BYTES, use_threads=False)
                timed(
                    "strict parse: PyArrow read_json (chosen)",
                    pa_json.read_json,
                    pa.BufferReader(data),
                    read_options=options,
                    parse_options=wire.parse_options,
                )
                records = timed(
                    "strict parse + known-column projection + extra (read_fast)",
                    read_fast,
                    data,
                    first_line=first_line,
                    lines=lines,
                    dialect="service",
                )
                first_line += lines
                segment_file.write_bytes(data)
                timed(
                    "lenient parse: DuckDB read_ndjson, explicit columns, to Arrow (not used)",
                    lambda: lenient.sql(
                        "SELECT * FROM read_ndjson(?, columns = ?)", params=[str(segment_file), columns]
                    ).to_arrow_table(),
                )
                result = timed("transforms", transform_records, records, prov)
                # The totals carry each row's line, as the pipeline's landing gives them (_repeats.py).
                for table, frame in (
                    ("user_daily_totals", result.totals.with_columns(result.lines.alias("_line"))),
                    ("breakdowns", result.breakdowns),
                    ("agent_activity", result.agent_activity),
                ):
                    timed("DuckDB inserts (one thread, 64 MB)", landing.insert, table=table, frame=frame, file_index=0)
        conn.close()
    print(
        f"{report.name}: {report.stat().st_size / 1e6:.0f} MB, {first_line - 1:,} lines, segments of {SEGMENT_LINES:,}"
    )
    for part, seconds in cpu.items():
        print(f"  {seconds:6.2f} s CPU  {part}")
    strict = cpu["strict parse + known-column projection + extra (read_fast)"]
    record("parts", f"strict parse (read_fast), {first_line - 1:,} lines: {strict:.2f} s CPU")


if __name__ == "__main__":
    main()
