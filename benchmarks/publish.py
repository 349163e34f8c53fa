"""What a publish costs on a year of a 10,000-user organization and its 15,000-user enterprise.

    .venv/bin/python -m benchmarks.publish [--days 365] [--users 10000]

Builds the year of benchmarks/_year.py straight from SQL (with its rollups), then times three publishes, each
a new version of the lake: a full one (every partition written, as after a migration), a
one-day one (the newest day of every day-partitioned table marked as a landing marks it: those
written, every other partition hard-linked from the previous version) and one that changed
nothing (links only). Each includes building the serving database and waiting for the
version's time (up to half a second). Then the pseudonymous tier (pipelines/publish/pseudonymous.py):
its first write (every day: what each publish cost when the tier was written whole, the
baseline) and its write after a one-day publish. Then, apart, what linking costs at a year of
every partitioned table of the catalog: one directory and one hard link per partition file.
Figures, not asserts; the load average is printed. `measure_publishes` is the same, for another
benchmark holding such a warehouse.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._year import LAST_DAY, build_warehouse  # noqa: E402
from benchmarks.summary import record  # noqa: E402
from pipelines.publish.lake import PublishResult, publish  # noqa: E402
from pipelines.publish.pseudonymous import publish_pseudonymous  # noqa: E402
from pipelines.warehouse import run_sql  # noqa: E402
from pipelines.warehouse.catalog import TABLES  # noqa: E402


@dataclass(frozen=True)
class Timed:
    seconds: float
    result: PublishResult


@dataclass(frozen=True)
class PublishTimes:
    full: Timed
    one_day: Timed
    unchanged: Timed


def _timed(conn: duckdb.DuckDBPyConnection, lake: Path, serving: Path, *, full: bool = False) -> Timed:
    started = time.perf_counter()
    result = publish(conn, lake=lake, serving=serving, full=full)
    return Timed(time.perf_counter() - started, result)


def measure_publishes(conn: duckdb.DuckDBPyConnection, scratch: Path, *, day: date) -> PublishTimes:
    """A full publish of the warehouse into `scratch`/lake, then a one-day one (`day` of every
    day-partitioned table changed) and one that changed nothing."""
    lake, serving = scratch / "lake", scratch / "serving.duckdb"
    full = _timed(conn, lake, serving, full=True)
    days = [t.name for t in TABLES if t.partition == "day"]
    run_sql(conn, "warehouse/mark_lake_changes.sql", tables=days, start_day=day, end_day=day)
    one_day = _timed(conn, lake, serving)
    return PublishTimes(full, one_day, _timed(conn, lake, serving))


def _link_cost(scratch: Path, *, days: int) -> tuple[int, float]:
    """Files of a year of every partitioned table, and the seconds one version's directories and
    links of them take (what a publish does for each partition it did not change)."""
    tables = [t.name for t in TABLES if t.partition is not None]
    old, new = scratch / "links-old", scratch / "links-new"
    for table in tables:
        for n in range(days):
            directory = old / table / f"day={LAST_DAY - timedelta(days=n)}"
            directory.mkdir(parents=True)
            (directory / "data.parquet").write_bytes(b"PAR1")
    files = sorted(old.rglob("data.parquet"))
    started = time.perf_counter()
    for path in files:
        directory = new / path.parent.relative_to(old)
        directory.mkdir(parents=True, exist_ok=True)
        os.link(path, directory / path.name)
    return len(files), time.perf_counter() - started


def _line(name: str, timed: Timed) -> str:
    r = timed.result
    return (
        f"{name:34} {timed.seconds:8.2f} s   {r.partitions_written:6,} written  {r.partitions_linked:6,} linked  "
        f"{r.tables_written:3} small tables"
    )


def measure_pseudonymous(conn: duckdb.DuckDBPyConnection, scratch: Path, *, day: date) -> tuple[float, float]:
    """Seconds of the pseudonymous tier's first write (every day), then of its write after a
    publish that changed `day` of every day-partitioned table."""
    lake, serving, key = scratch / "lake", scratch / "serving.duckdb", "a-benchmark-pseudonym-key"
    started = time.perf_counter()
    publish_pseudonymous(conn, serving=serving, key=key)
    every_day = time.perf_counter() - started
    days = [t.name for t in TABLES if t.partition == "day"]
    run_sql(conn, "warehouse/mark_lake_changes.sql", tables=days, start_day=day, end_day=day)
    publish(conn, lake=lake, serving=serving)
    started = time.perf_counter()
    publish_pseudonymous(conn, serving=serving, key=key)
    return every_day, time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=365, help="days of history")
    parser.add_argument("--users", type=int, default=10_000, help="organization users (the enterprise has 1.5x)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-publish-") as name:
        scratch = Path(name)
        with build_warehouse(scratch, args.users, args.days) as conn:
            times = measure_publishes(conn, scratch, day=LAST_DAY)
            every_day, one_day = measure_pseudonymous(conn, scratch, day=LAST_DAY)
        print(_line("full publish", times.full))
        print(_line("one-day publish", times.one_day))
        print(_line("publish that changed nothing", times.unchanged))
        print(
            f"pseudonymous tier: every day {every_day:.1f} s (the baseline: the tier written whole), "
            f"after a one-day publish {one_day:.2f} s ({every_day / one_day:.0f}x less)"
        )
        files, seconds = _link_cost(scratch, days=args.days)
        print(
            f"\nlinks of a year of every partitioned table: {files:,} files, {seconds:.2f} s "
            f"({seconds / files * 1e6:.0f} us a file); load average {os.getloadavg()[0]:.2f}"
        )
    size = f"{args.days} days x {args.users:,} + {args.users * 3 // 2:,} users"
    record("publish", f"full publish {times.full.seconds:.1f} s, one-day {times.one_day.seconds:.2f} s ({size})")
    record("publish", f"pseudonymous tier after a one-day publish {one_day:.2f} s, written whole {every_day:.1f} s")
    record("publish", f"links of {files:,} partition files (a year of every partitioned table): {seconds:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
