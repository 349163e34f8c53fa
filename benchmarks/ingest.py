"""Usage-report ingestion end to end vs DuckDB's own read_ndjson of the same bytes.

    .venv/bin/python -m benchmarks.ingest [--scale 2] [--users N]

The emulator serves a generated user-level report (made once under benchmarks/.cache/); the
pipeline's ingest_report (HTTP, archive, parse, transform, land) runs in a child process so
its peak RSS is its own; the baseline, DuckDB read_ndjson of the local file into a table,
runs in another child. Prints records/s, MB/s, peak RSS and the ratio. Figures, not asserts.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import resource
import shutil
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

CACHE = Path(__file__).parent / ".cache"
DAY = date(2026, 11, 19)
USERS = 500_000


def _ingest(base_url: str, token: str, dialect: str, work: str, out) -> None:
    import duckdb

    from pipelines.config import Secret, Settings
    from pipelines.ingest import ingest_report
    from pipelines.service import ReportRef
    from pipelines.service.client import ServiceClient

    settings = Settings(base_url=base_url, token=Secret(token), org="acme", dialect=dialect)
    conn = duckdb.connect(str(Path(work) / "warehouse.duckdb"))
    with ServiceClient(settings=settings) as client:
        started = time.perf_counter()
        result = ingest_report(client=client, ref=ReportRef("organization", "acme", "1-day", "user", DAY), conn=conn, raw_dir=Path(work) / "raw")
        elapsed = time.perf_counter() - started
    conn.close()
    out.put({"seconds": elapsed, "records": sum(v for k, v in result.rows.items() if k.endswith("totals")),
             "bytes": result.bytes, "files": result.files, "rows": result.rows})


def _baseline(path: str, work: str, out) -> None:
    import duckdb

    conn = duckdb.connect(str(Path(work) / "baseline.duckdb"))
    started = time.perf_counter()
    conn.execute("CREATE TABLE t AS SELECT * FROM read_ndjson(?)", [path])
    out.put({"seconds": time.perf_counter() - started})


def _child(target, *args) -> tuple[dict, float]:
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    proc = ctx.Process(target=target, args=(*args, out))
    proc.start()
    figures = out.get()
    proc.join()
    # ru_maxrss of children is the max over all reaped children: run the bigger one last.
    peak_mb = max(before, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss) / 1024
    return figures, peak_mb


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=int, default=1, help="report size multiple (days of 500,000 user-days)")
    parser.add_argument("--users", type=int, default=USERS)
    args = parser.parse_args()

    from emulator import EmulatorConfig, running_emulator
    from emulator.reportfile import write_report_file

    # --scale N: N days of the same users, served as one report (twice the bytes at 2).
    report = write_report_file(CACHE / f"users-{args.users}-x{args.scale}.ndjson", seed=1, users=args.users,
                               day=DAY - timedelta(days=args.scale - 1), days=args.scale)
    size_mb = report.stat().st_size / 1e6
    work = Path(tempfile.mkdtemp(prefix="bench-ingest-"))
    try:
        baseline, base_rss = _child(_baseline, str(report), str(work))
        config = EmulatorConfig(seed=1, users=50, today=DAY + timedelta(days=1), report_file=report, report_file_day=DAY)
        with running_emulator(config) as emu:
            creds = emu.credentials
            ingest, ingest_rss = _child(_ingest, creds["base_url"], creds["token"], creds["dialect"], str(work))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    ratio = ingest["seconds"] / baseline["seconds"]
    print(json.dumps({"file_mb": round(size_mb, 1), "files": ingest["files"], "rows": ingest["rows"]}))
    print(f"baseline  read_ndjson -> table  {baseline['seconds']:.2f} s   peak RSS {base_rss:.0f} MB")
    print(f"pipeline  ingest_report         {ingest['seconds']:.2f} s   peak RSS {ingest_rss:.0f} MB (max of children so far)")
    print(f"          {ingest['records'] / ingest['seconds']:,.0f} records/s   {size_mb / ingest['seconds']:.0f} MB/s")
    print(f"ratio pipeline/baseline  {ratio:.2f}x   (target <= 2.0x, RSS < 400 MB)")


if __name__ == "__main__":
    main()
