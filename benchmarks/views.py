"""What the bi.* views cost on a year of a 10,000-user organization and its 15,000-user enterprise.

    .venv/bin/python -m benchmarks.views [--days 365] [--users 10000] [--repeat 3]

Builds a warehouse in a temporary directory straight from SQL (no emulator: the views are what
is measured): per day the aggregate rows of both scopes, one user-level row per user of each
scope (about 60% active), agent entries at both levels, three fetches a day in
raw.report_fetches, the newest three days provisional. Then times each view read whole and the
report page's and run summary's queries, against the baseline of one full grouped scan of
core.user_daily_totals (the largest table the views read) in the same run, and prints the
ratios (best of --repeat). Figures, not asserts; the load average is printed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.summary import record  # noqa: E402
from pipelines.warehouse import migrate  # noqa: E402
from pipelines.warehouse.sql import run_sql  # noqa: E402

LAST_DAY = date(2026, 11, 20)
BASELINE = "SELECT day, count(*), sum(user_initiated_interaction_count) FROM core.user_daily_totals GROUP BY day"
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
FROM scopes AS s, days AS d, range(s.users) AS r(u);
INSERT INTO core.agent_activity BY NAME
SELECT scope, scope_name, 'user' AS level, day, user_id, user_login,
       CAST(1000 + hash(user_id) % 5 AS VARCHAR) AS agent_id, 'Agent ' || (hash(user_id) % 5) AS agent_name,
       CAST(1 + hash(user_id, day) % 4 AS BIGINT) AS agent_job_starts, fetched_at, is_final
FROM core.user_daily_totals WHERE agent_breakdown_present;
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
INSERT INTO core.agent_days
SELECT scope, scope_name, level, day, agent_id, agent_name, sum(agent_job_starts), max(fetched_at)
FROM core.agent_activity GROUP BY ALL;
INSERT INTO core.dim_agent BY NAME
SELECT agent_id, any_value(agent_name) AS agent_name, min(day) AS first_seen_day, max(day) AS last_seen_day
FROM core.agent_days GROUP BY agent_id;
INSERT INTO raw.report_fetches BY NAME
SELECT t.scope, t.scope_name, 'aggregate' AS level, '1-day' AS report_kind, t.day,
       TIMESTAMPTZ '2026-11-21 06:00:00+00' - INTERVAL (f) HOUR AS fetched_at, t.is_final, t.day AS report_start_day,
       t.day AS report_end_day, 1 AS records, 1 AS agent_array_records,
       t.user_initiated_interaction_count - f AS user_initiated_interaction_count,
       t.daily_active_users AS active_users
FROM core.daily_totals AS t, range(3) AS r(f);
"""


def _time(conn: duckdb.DuckDBPyConnection, sql: str, params: dict[str, object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        conn.execute(sql, params).fetchall()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=365, help="days of history")
    parser.add_argument("--users", type=int, default=10_000, help="organization users (the enterprise has 1.5x)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each query; the best counts")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-views-") as scratch:
        conn = duckdb.connect(str(Path(scratch) / "w.duckdb"))
        migrate(conn)
        started = time.perf_counter()
        values = {"users": args.users, "enterprise_users": args.users * 3 // 2, "days": args.days,
                  "last_day": LAST_DAY}
        for statement in _BUILD.split(";"):
            if statement.strip():
                conn.execute(statement, {k: v for k, v in values.items() if f"${k}" in statement} or None)
        (rows,) = conn.execute("SELECT count(*) FROM core.user_daily_totals").fetchone() or (0,)
        print(f"built {args.days} days, {rows:,} user-day rows in {time.perf_counter() - started:.1f} s; "
              f"load average {os.getloadavg()[0]:.2f}")
        baseline = _time(conn, BASELINE, {}, args.repeat)
        print(f"baseline (one grouped scan of core.user_daily_totals): {baseline * 1000:.0f} ms\n")
        print(f"{'query':52} {'ms':>8} {'ratio':>7}")
        for view in ("agent_usage_daily", "agent_usage_periods", "report_coverage", "assistant_activity_daily",
                     "report_drift", "reconciliation"):
            seconds = _time(conn, f"SELECT count(*) FROM bi.{view}", {}, args.repeat)
            print(f"{'bi.' + view + ' (whole)':52} {seconds * 1000:8.0f} {seconds / baseline:7.2f}")
        scope = {"scope": "enterprise", "scope_name": "acme-corp"}
        for name, params in (("page/select_agent_periods.sql", scope), ("page/select_agent_days.sql", scope),
                             ("page/select_coverage_days.sql", {}), ("metadata/select_agent_headline.sql", {}),
                             ("metadata/select_agent_summary.sql", {})):
            best = float("inf")
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                run_sql(conn, name, **params)
                best = min(best, time.perf_counter() - t0)
            print(f"{name:52} {best * 1000:8.0f} {best / baseline:7.2f}")
        last_week = _time(conn, "SELECT count(*) FROM bi.reconciliation WHERE day > $d",
                          {"d": date.fromordinal(LAST_DAY.toordinal() - 7)}, args.repeat)
        label = "bi.reconciliation, last 7 days (the run check)"
        print(f"{label:52} {last_week * 1000:8.0f} {last_week / baseline:7.2f}")
        record("views", f"{label}: {last_week * 1000:.0f} ms, {last_week / baseline:.2f}x the scan")
        conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
