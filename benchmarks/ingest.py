"""Usage-report ingestion end to end vs DuckDB's own read_ndjson of the same bytes.

    .venv/bin/python -m benchmarks.ingest [--scale 2] [--users N] [--repeat 3] [--bad-every N]

The emulator serves a generated user-level report (made once under benchmarks/.cache/); the
pipeline's ingest_report (HTTP, archive, parse, transform, land) runs in a child process and
reports its own peak RSS; the baseline, DuckDB read_ndjson of the local file into a table,
runs in another child just before it. Prints records/s, MB/s, peak RSS and the ratio for each
round, then the spread. Figures, not asserts; the machine's load average is printed too.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import shutil
import statistics
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
    from pipelines.service import ReportRef, ServiceClient
    from pipelines.warehouse import migrate

    # Every file in the benchmark's work directory, none in the person's data home.
    settings = Settings(base_url=base_url, token=Secret(token), orgs=("acme",), dialect=dialect, home=Path(work))
    conn = duckdb.connect(str(Path(work) / "warehouse.duckdb"))
    migrate(conn)  # before the clock starts: the Dagster resource migrates once per process
    with ServiceClient(config=settings.service_config()) as client:
        started, cpu = time.perf_counter(), time.process_time()
        result = ingest_report(
            client=client,
            ref=ReportRef("organization", "acme", "1-day", "user", DAY),
            conn=conn,
            raw_dir=Path(work) / "raw",
        )
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    conn.close()
    out.put(
        {
            "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            "seconds": elapsed,
            "cpu": cpu,
            "records": sum(v for k, v in result.rows.items() if k.endswith("totals")),
            "bytes": result.bytes,
            "files": result.files,
            "rows": result.rows,
        }
    )


def _baseline(path: str, work: str, out) -> None:
    import duckdb

    conn = duckdb.connect(str(Path(work) / "baseline.duckdb"))
    started, cpu = time.perf_counter(), time.process_time()
    conn.execute("CREATE TABLE t AS SELECT * FROM read_ndjson(?)", [path])
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    out.put({"rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "seconds": elapsed, "cpu": cpu})


def _with_bad_lines(report: Path, *, every: int) -> Path:
    """A copy of the report (made once) whose every Nth line has a boolean written as text."""
    bad = report.with_name(f"{report.stem}-bad{every}.ndjson")
    if not bad.exists() or bad.stat().st_mtime < report.stat().st_mtime:
        part = bad.with_name(bad.name + ".part")
        with report.open("rb") as source, part.open("wb") as out:
            for number, line in enumerate(source, start=1):
                if number % every == 0:
                    line = line.replace(b'"used_agent":false', b'"used_agent":"no"').replace(
                        b'"used_agent":true', b'"used_agent":"yes"'
                    )
                out.write(line)
        part.replace(bad)
    return bad


def _child(target, *args) -> dict:
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    proc = ctx.Process(target=target, args=(*args, out))
    proc.start()
    figures = out.get()
    proc.join()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scale", type=int, default=1, help="report size multiple (N times the users of one day)")
    parser.add_argument("--users", type=int, default=USERS)
    parser.add_argument(
        "--repeat", type=int, default=1, help="rounds of baseline + pipeline (shared machine: report the spread)"
    )
    parser.add_argument("--bad-every", type=int, default=0, metavar="N",
                        help="make every Nth line a wrong-type line (quarantined): the cost of sparse bad input")
    args = parser.parse_args()

    from emulator import EmulatorConfig, running_emulator
    from emulator.reportfile import write_report_file

    # --scale N: N times the users on the report's one day (a file of several days served as a
    # 1-day report would send every other day's records to quarantine as out of range).
    users = args.users * args.scale
    report = write_report_file(CACHE / f"users-{users}-x1.ndjson", seed=1, users=users, day=DAY, days=1)
    if args.bad_every:
        report = _with_bad_lines(report, every=args.bad_every)
    size_mb = report.stat().st_size / 1e6
    config = EmulatorConfig(seed=1, users=50, today=DAY + timedelta(days=1), report_file=report, report_file_day=DAY)
    ratios = []
    with running_emulator(config) as emu:
        creds = emu.credentials
        for round_ in range(1, args.repeat + 1):
            work = Path(tempfile.mkdtemp(prefix="bench-ingest-"))
            try:
                load = os.getloadavg()[0]
                baseline = _child(_baseline, str(report), str(work))
                # The emulator serves from this process: its CPU is part of the pipeline's cost.
                serving_cpu = time.process_time()
                ingest = _child(_ingest, creds["base_url"], creds["token"], creds["dialect"], str(work))
                serving_cpu = time.process_time() - serving_cpu
            finally:
                shutil.rmtree(work, ignore_errors=True)
            ratio = ingest["seconds"] / baseline["seconds"]
            ratios.append(ratio)
            if round_ == 1:
                print(json.dumps({"file_mb": round(size_mb, 1), "files": ingest["files"], "rows": ingest["rows"]}))
            print(f"round {round_} (load average {load:.1f} on {os.cpu_count()} cores)")
            print(
                f"  baseline  read_ndjson -> table  {baseline['seconds']:.2f} s   peak RSS {baseline['rss_mb']:.0f} MB"
                f"   CPU {baseline['cpu']:.2f} s"
            )
            print(
                f"  pipeline  ingest_report         {ingest['seconds']:.2f} s   peak RSS {ingest['rss_mb']:.0f} MB"
                f"   CPU {ingest['cpu']:.2f} s"
                f" (+{serving_cpu:.2f} s serving)"
            )
            print(
                f"            {ingest['records'] / ingest['seconds']:,.0f} records/s"
                f"   {size_mb / ingest['seconds']:.0f} MB/s"
            )
            print(f"  ratio pipeline/baseline  {ratio:.2f}x   (target <= 2.0x, RSS < 400 MB)")
    if len(ratios) > 1:
        print(
            f"ratio over {len(ratios)} rounds: min {min(ratios):.2f}x  median {statistics.median(ratios):.2f}x"
            f"  max {max(ratios):.2f}x"
        )


if __name__ == "__main__":
    main()
