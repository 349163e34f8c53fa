"""A year of an organization and its enterprise, built straight from SQL for the benchmarks.

The aggregate rows of an organization of `users` users and its enterprise of 1.5x as many, one
user-level row per user of each scope a day (about 60% active), team memberships (one team
each, a fifth of the users on a second: about 600 teams a scope), agent entries at both levels,
three fetches a day, the newest three days provisional, rows in day order as landings leave
them; then the rollups, built from those facts as landings keep them.
"""

from __future__ import annotations

import os
import time
from datetime import date
from pathlib import Path

import duckdb

from pipelines.warehouse import migrate
from pipelines.warehouse.rollups import rebuild_rollups
from pipelines.warehouse.sql import connect

__all__ = ["LAST_DAY", "build_warehouse"]

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


def build_warehouse(scratch: Path, users: int, days: int) -> duckdb.DuckDBPyConnection:
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
    print(
        f"built {days} days, {rows:,} user-day rows in {built:.1f} s, rollups from them in {rebuilt:.1f} s; "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    return conn
