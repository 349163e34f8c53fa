"""What the bi.* views cost through the serving database BI tools open, beside the warehouse.

    .venv/bin/python -m benchmarks.views [--days 365] [--users 10000 100000] [--repeat 3] [--vendors]

For each size: the year of benchmarks/_year.py (an organization of --users users and its
enterprise of 1.5x as many, built straight from SQL with its rollups: no emulator, the views
are what is measured), in a temporary directory. A landing's refresh of the rollups for one day
of the enterprise is timed (rolled back); then a full, a one-day and an unchanged publish
(benchmarks/publish.py) write the lake and the serving database. Then each bi view is read
whole (count(*) over it) through a read-only connection to the serving database, as a BI tool
holds one, against the same view on the warehouse in the same run (the baseline), and so are
the report page's and run summary's queries. Figures, not asserts; the load average is
printed. The target: every view and query under 100 ms through the serving database, at every
size; for a view of one row per user and day (PER_USER), whose whole is every user-day, a
read of its newest 28 days. A view a dashboard reads by day (BY_DAY) has its newest day's read
printed too.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._year import LAST_DAY, build_warehouse  # noqa: E402
from benchmarks.publish import measure_publishes  # noqa: E402
from benchmarks.summary import record  # noqa: E402
from pipelines.warehouse.rollups import refresh_rollups  # noqa: E402
from pipelines.warehouse.sql import connect, run_sql  # noqa: E402

TARGET_MS = 100
# Views of one row per user and day: a whole read is a read of every user-day, so it grows with
# users by what the view is. Their figure beside the target is a dashboard's read of them, the
# newest 28 days; the whole read is printed too.
PER_USER = {"ai_credits_daily", "assistant_usage_daily", "assistant_cost_daily"}
# Views a dashboard filters by day: a day's read is printed beside the whole one, and costs less.
BY_DAY = {"chargeback_by_team"}


def _best(run: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


# The page's and the run summary's queries, with the parameters they are run with.
_QUERIES = (
    ("page/select_agent_periods.sql", {"scope": "enterprise", "scope_name": "acme-corp"}),
    ("page/select_agent_days.sql", {"scope": "enterprise", "scope_name": "acme-corp"}),
    ("page/select_coverage_days.sql", {}),
    ("page/select_team_periods.sql", {"scope": "organization", "scope_name": "acme"}),
    ("page/select_team_agents.sql", {"scope": "organization", "scope_name": "acme"}),
    ("metadata/select_agent_headline.sql", {}),
    ("metadata/select_agent_summary.sql", {}),
    ("metadata/select_team_summary.sql", {}),
)


def _refresh_one_day(conn: duckdb.DuckDBPyConnection, label: str, repeat: int) -> None:
    """What the rollups add to a daily landing: one day of the enterprise, as land_report does it."""

    def refresh() -> None:
        conn.execute("BEGIN TRANSACTION")
        refresh_rollups(conn, scope="enterprise", scope_name="acme-corp", start_day=LAST_DAY, end_day=LAST_DAY)
        conn.execute("ROLLBACK")

    seconds = _best(refresh, repeat)
    print(f"rollups of one landed day (enterprise): {seconds:.2f} s")
    record("views", f"{label}: the rollups of one landed day {seconds:.2f} s")


def _publish(conn: duckdb.DuckDBPyConnection, scratch: Path, label: str) -> None:
    times = measure_publishes(conn, scratch, day=LAST_DAY)
    # The publish leaves its memory limit (256 MB) on the connection: the warehouse's reads after
    # it are a reader's, without it (the chargeback allocating a year ran out of it).
    conn.execute("RESET memory_limit")
    print(
        f"publish: full {times.full.seconds:.1f} s, one day {times.one_day.seconds:.2f} s, "
        f"nothing changed {times.unchanged.seconds:.2f} s"
    )
    record("views", f"{label}: full publish {times.full.seconds:.1f} s, one-day publish {times.one_day.seconds:.2f} s")


def _measure(conn: duckdb.DuckDBPyConnection, scratch: Path, label: str, repeat: int) -> list[tuple[str, float]]:
    """Each view and query through the serving database beside the warehouse; the slow ones."""
    serving = connect(scratch / "serving.duckdb", read_only=True)
    views = [
        name
        for (name,) in serving.execute(
            "SELECT view_name FROM duckdb_views() WHERE schema_name = 'bi' ORDER BY view_name"
        ).fetchall()
    ]
    print(f"\n{'view or query':52} {'serving ms':>10} {'warehouse ms':>12} {'ratio':>6}")

    def timed(name: str, read: Callable[[duckdb.DuckDBPyConnection], object]) -> float:
        through = _best(lambda: read(serving), repeat)
        baseline = _best(lambda: read(conn), repeat)
        print(f"{name:52} {through * 1000:10.0f} {baseline * 1000:12.0f} {through / baseline:6.2f}")
        return through

    reads: list[tuple[str, Callable[[duckdb.DuckDBPyConnection], object]]] = []
    for view in views:
        whole = f"SELECT count(*) FROM bi.{view}"
        reads.append((f"bi.{view} (whole)", lambda db, sql=whole: db.execute(sql).fetchall()))
    for name, params in _QUERIES:
        reads.append((name, lambda db, name=name, params=params: run_sql(db, name, **params)))
    # A per-user view is held to the target by its newest 28 days; the others read whole.
    for view in sorted(PER_USER):
        recent = f"SELECT count(*) FROM bi.{view} WHERE day > DATE '{LAST_DAY}' - 28"
        reads.append((f"bi.{view} (newest 28 days)", lambda db, sql=recent: db.execute(sql).fetchall()))
    for view in sorted(BY_DAY):
        newest = f"SELECT count(*) FROM bi.{view} WHERE day = DATE '{LAST_DAY}'"
        reads.append((f"bi.{view} (newest day)", lambda db, sql=newest: db.execute(sql).fetchall()))
    slow = []
    for name, read in reads:
        through = timed(name, read)
        if through * 1000 >= TARGET_MS and not any(name == f"bi.{view} (whole)" for view in PER_USER):
            slow.append((name, through))
    serving.close()
    return slow


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=365, help="days of history")
    parser.add_argument(
        "--users",
        type=int,
        nargs="+",
        default=[10_000, 100_000],
        help="organization users, one size each (the enterprise has 1.5x)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs of each query; the best counts")
    parser.add_argument(
        "--vendors",
        action="store_true",
        help="with Claude Code and Cursor bought directly (a third and a fifth of the users, a daily spend read)",
    )
    args = parser.parse_args()
    for users in args.users:
        label = f"{args.days} days x ({users:,} + {users * 3 // 2:,}) users"
        label += ", both vendors" if args.vendors else ""
        print(f"\n== {label}")
        with tempfile.TemporaryDirectory(prefix="bench-views-") as scratch:
            conn = build_warehouse(Path(scratch), users, args.days, vendors=args.vendors)
            _refresh_one_day(conn, label, args.repeat)
            _publish(conn, Path(scratch), label)
            slow = _measure(conn, Path(scratch), label, args.repeat)
            conn.close()
        worst = ", ".join(f"{name} {seconds * 1000:.0f} ms" for name, seconds in slow) or "none"
        print(f"\nover {TARGET_MS} ms through the serving database: {worst}")
        record(
            "views",
            f"{label}, views and page queries through serving over {TARGET_MS} ms: {worst}",
            f"none over {TARGET_MS} ms",
            not slow,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
