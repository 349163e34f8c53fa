"""What the bi.* views cost through the serving database BI tools open, beside the warehouse.

    .venv/bin/python -m benchmarks.views [--days 365] [--users 10000 100000] [--repeat 3]

For each size: builds a warehouse in a temporary directory straight from SQL (no emulator: the
views are what is measured): per day the aggregate rows of an organization of --users users and
its enterprise of 1.5x as many, one user-level row per user of each scope (about 60% active),
team memberships (one team each, a fifth of the users on a second: about 600 teams a scope), agent
entries at both levels, three fetches a day, the newest three days provisional, rows in day order
as landings leave them. The rollups are built from those facts, and a landing's refresh of one
day of the enterprise is timed (rolled back); then a full publish writes the lake and the serving database, and a
one-day publish rewrites one day of every day table (both timed). Then each bi view is read whole
(count(*) over it) through a read-only connection to the serving database, as a BI tool holds
one, against the same view on the warehouse in the same run (the baseline), and so are the report
page's and run summary's queries. Figures, not asserts; the load average is printed. The target:
every view and query under 100 ms through the serving database, at every size.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.summary import record  # noqa: E402
from pipelines.warehouse import migrate  # noqa: E402
from pipelines.warehouse.lake import publish  # noqa: E402
from pipelines.warehouse.rollups import rebuild_rollups, refresh_rollups  # noqa: E402
from pipelines.warehouse.sql import connect, run_sql  # noqa: E402

TARGET_MS = 100

LAST_DAY = date(2026, 11, 20)
_BUILD = """
CREATE TEMP TABLE scopes AS
SELECT * FROM (VALUES ('organization', 'acme', $users), ('enterprise', 'acme-corp', $enterprise_users))
    AS s(scope, scope_name, users);
CREATE TEMP TABLE days AS
SELECT CAST($last_day AS DATE) - CAST(n AS INTEGER) AS day, n < 3 AS provisional
FROM range($days) AS r(n);
INSERT INTO core.user_daily_totals BY NAME
SELECT s.scope, s.scope_name, d.day, '1-day' AS report_kind, u AS user_id, 'dev-' || u AS user_login,
       hash(u, d.day) % 10 < 6 AS used_chat,
       CASE WHEN hash(u, d.day) % 10 < 6 THEN CAST(hash(d.day, u) % 40 AS BIGINT) ELSE 0 END
           AS user_initiated_interaction_count,
       CASE WHEN hash(u, d.day) % 10 < 6 THEN CAST(hash(u, d.day, 1) % 30 AS BIGINT) ELSE 0 END
           AS code_generation_activity_count,
       CAST(hash(u, d.day, 2) % 10 AS BIGINT) AS code_acceptance_activity_count,
       hash(u, d.day) % 10 = 0 AS agent_breakdown_present,
       TIMESTAMPTZ '2026-11-21 06:00:00+00' AS fetched_at, NOT d.provisional AS is_final
FROM scopes AS s, days AS d, range(s.users) AS r(u)
ORDER BY d.day, s.scope;
INSERT INTO core.agent_activity BY NAME
SELECT scope, scope_name, 'user' AS level, day, user_id, user_login,
       CAST(1000 + hash(user_id) % 5 AS VARCHAR) AS agent_id, 'Agent ' || (hash(user_id) % 5) AS agent_name,
       CAST(1 + hash(user_id, day) % 4 AS BIGINT) AS agent_job_starts, fetched_at, is_final
FROM core.user_daily_totals WHERE agent_breakdown_present ORDER BY day, scope;
INSERT INTO core.daily_totals BY NAME
SELECT scope, scope_name, day, '1-day' AS report_kind,
       sum(user_initiated_interaction_count) AS user_initiated_interaction_count,
       sum(code_generation_activity_count) AS code_generation_activity_count,
       sum(code_acceptance_activity_count) AS code_acceptance_activity_count,
       count(*) FILTER (WHERE user_initiated_interaction_count > 0 OR code_generation_activity_count > 0)
           AS daily_active_users,
       TRUE AS agent_breakdown_present, max(fetched_at) AS fetched_at, bool_and(is_final) AS is_final
FROM core.user_daily_totals GROUP BY ALL;
INSERT INTO core.agent_activity BY NAME
SELECT scope, scope_name, 'aggregate' AS level, day, agent_id, any_value(agent_name) AS agent_name,
       sum(agent_job_starts) AS agent_job_starts, count(*) AS session_count, max(fetched_at) AS fetched_at,
       bool_and(is_final) AS is_final
FROM core.agent_activity WHERE level = 'user' GROUP BY scope, scope_name, day, agent_id;
INSERT INTO core.agent_days BY NAME
SELECT scope, scope_name, level, day, agent_id, agent_name, sum(agent_job_starts) AS agent_job_starts,
       max(fetched_at) AS fetched_at,
       CASE WHEN level = 'user' THEN count(DISTINCT user_id) END AS agent_users,
       CAST(sum(session_count) AS BIGINT) AS session_count
FROM core.agent_activity GROUP BY scope, scope_name, level, day, agent_id, agent_name;
INSERT INTO core.dim_agent BY NAME
SELECT agent_id, any_value(agent_name) AS agent_name, min(day) AS first_seen_day, max(day) AS last_seen_day
FROM core.agent_days GROUP BY agent_id;
INSERT INTO core.user_team_days BY NAME
SELECT scope, scope_name, day, user_id, user_login, team_id, 'team-' || team_id AS slug, fetched_at, is_final
FROM (SELECT *, [user_id % 500] || CASE WHEN user_id % 5 = 0 THEN [500 + user_id % 97] ELSE [] END AS teams
      FROM core.user_daily_totals) AS u, unnest(u.teams) AS t(team_id)
ORDER BY day, scope;
INSERT INTO core.team_days BY NAME
SELECT scope, scope_name, day, team_id, any_value(slug) AS slug, count(*) AS members, max(fetched_at) AS fetched_at
FROM core.user_team_days GROUP BY scope, scope_name, day, team_id;
INSERT INTO core.dim_team BY NAME
SELECT scope, scope_name, team_id, any_value(slug) AS slug, min(day) AS first_seen_day, max(day) AS last_seen_day
FROM core.team_days GROUP BY scope, scope_name, team_id;
INSERT INTO raw.report_fetches BY NAME
SELECT t.scope, t.scope_name, 'aggregate' AS level, '1-day' AS report_kind, t.day,
       TIMESTAMPTZ '2026-11-21 06:00:00+00' - INTERVAL (f) HOUR AS fetched_at, t.is_final, t.day AS report_start_day,
       t.day AS report_end_day, 1 AS records, 1 AS agent_array_records,
       t.user_initiated_interaction_count - f AS user_initiated_interaction_count,
       t.daily_active_users AS active_users
FROM core.daily_totals AS t, range(3) AS r(f);
"""


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


def _build(scratch: Path, users: int, days: int) -> duckdb.DuckDBPyConnection:
    conn = connect(scratch / "w.duckdb")
    migrate(conn)
    started = time.perf_counter()
    values = {"users": users, "enterprise_users": users * 3 // 2, "days": days, "last_day": LAST_DAY}
    for statement in _BUILD.split(";"):
        if statement.strip():
            conn.execute(statement, {k: v for k, v in values.items() if f"${k}" in statement} or None)
    built = time.perf_counter() - started
    started = time.perf_counter()
    rebuild_rollups(conn)
    rebuilt = time.perf_counter() - started
    (rows,) = conn.execute("SELECT count(*) FROM core.user_daily_totals").fetchall()[0]
    print(f"built {days} days, {rows:,} user-day rows in {built:.1f} s, rollups from them in {rebuilt:.1f} s; "
          f"load average {os.getloadavg()[0]:.2f}")
    return conn


def _refresh_one_day(conn: duckdb.DuckDBPyConnection, label: str, repeat: int) -> None:
    """What the rollups add to a daily landing: one day of the enterprise, as land_report does it."""
    def refresh() -> None:
        conn.execute("BEGIN TRANSACTION")
        refresh_rollups(conn, scope="enterprise", scope_name="acme-corp", start_day=LAST_DAY, end_day=LAST_DAY)
        conn.execute("ROLLBACK")

    seconds = _best(refresh, repeat)
    print(f"rollups of one landed day (enterprise): {seconds:.2f} s")
    record("views", f"{label}: the rollups of one landed day {seconds:.2f} s")


def _publish(conn: duckdb.DuckDBPyConnection, scratch: Path, label: str) -> tuple[float, float]:
    lake, serving = scratch / "lake", scratch / "serving.duckdb"
    started = time.perf_counter()
    publish(conn, lake=lake, serving=serving, full=True)
    full = time.perf_counter() - started
    tables = [name for (name,) in conn.execute(
        "SELECT DISTINCT table_schema || '.' || table_name FROM information_schema.columns"
        " WHERE column_name = 'day' AND table_schema IN ('core', 'raw')").fetchall()]
    run_sql(conn, "warehouse/mark_lake_changes.sql", tables=tables, start_day=LAST_DAY, end_day=LAST_DAY)
    started = time.perf_counter()
    publish(conn, lake=lake, serving=serving)
    one_day = time.perf_counter() - started
    print(f"publish: full {full:.1f} s, one day {one_day:.2f} s")
    record("views", f"{label}: full publish {full:.1f} s, one-day publish {one_day:.2f} s")
    return full, one_day


def _measure(conn: duckdb.DuckDBPyConnection, scratch: Path, label: str, repeat: int) -> list[tuple[str, float]]:
    """Each view and query through the serving database beside the warehouse; the slow ones."""
    serving = connect(scratch / "serving.duckdb", read_only=True)
    views = [name for (name,) in serving.execute(
        "SELECT view_name FROM duckdb_views() WHERE schema_name = 'bi' ORDER BY view_name").fetchall()]
    print(f"\n{'view or query':52} {'serving ms':>10} {'warehouse ms':>12} {'ratio':>6}")
    slow = []
    for view in views:
        sql = f"SELECT count(*) FROM bi.{view}"
        through = _best(lambda sql=sql: serving.execute(sql).fetchall(), repeat)
        baseline = _best(lambda sql=sql: conn.execute(sql).fetchall(), repeat)
        name = f"bi.{view} (whole)"
        print(f"{name:52} {through * 1000:10.0f} {baseline * 1000:12.0f} {through / baseline:6.2f}")
        if through * 1000 >= TARGET_MS:
            slow.append((f"bi.{view}", through))
    for name, params in _QUERIES:
        through = _best(lambda name=name, params=params: run_sql(serving, name, **params), repeat)
        baseline = _best(lambda name=name, params=params: run_sql(conn, name, **params), repeat)
        print(f"{name:52} {through * 1000:10.0f} {baseline * 1000:12.0f} {through / baseline:6.2f}")
        if through * 1000 >= TARGET_MS:
            slow.append((name, through))
    serving.close()
    return slow


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=365, help="days of history")
    parser.add_argument("--users", type=int, nargs="+", default=[10_000, 100_000],
                        help="organization users, one size each (the enterprise has 1.5x)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each query; the best counts")
    args = parser.parse_args()
    for users in args.users:
        label = f"{args.days} days x ({users:,} + {users * 3 // 2:,}) users"
        print(f"\n== {label}")
        with tempfile.TemporaryDirectory(prefix="bench-views-") as scratch:
            conn = _build(Path(scratch), users, args.days)
            _refresh_one_day(conn, label, args.repeat)
            _publish(conn, Path(scratch), label)
            slow = _measure(conn, Path(scratch), label, args.repeat)
            conn.close()
        worst = ", ".join(f"{name} {seconds * 1000:.0f} ms" for name, seconds in slow) or "none"
        print(f"\nover {TARGET_MS} ms through the serving database: {worst}")
        record("views", f"{label}, views and page queries through serving over {TARGET_MS} ms: {worst}",
               f"none over {TARGET_MS} ms", not slow)
    return 0


if __name__ == "__main__":
    sys.exit(main())
