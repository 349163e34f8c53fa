"""A year of an organization and its enterprise, built straight from SQL for the benchmarks.

The aggregate rows of an organization of `users` users and its enterprise of 1.5x as many, one
user-level row per user of each scope a day (about 60% active, each reporting AI credits), team
memberships (one team each, a fifth of the users on a second: about 600 teams a scope), agent
entries at both levels, three fetches a day, the newest three days provisional, rows in day
order as landings leave them; the bill of both scopes a day (two models), the enterprise's per
cost center (one of 60 teams, one of 200 users spelled in capitals, one of the organization, and
none) and a week of snapshots of those cost centers; then the rollups, built from those facts as
landings keep them.
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
       CASE WHEN hash(u, d.day) % 10 < 6 THEN CAST(hash(u, d.day, 7) % 4000 AS DECIMAL(18, 6)) / 100 ELSE 0 END
           AS ai_credits_used,
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
INSERT INTO billing.credit_usage BY NAME
SELECT scope, scope_name, day, 'ai_credit' AS meter, 'assistant' AS product, 'assistant_ai_credit' AS sku, m AS model,
       'ai-credits' AS unit_type, 0.01 AS price_per_unit, c AS gross_quantity, c / 100 AS gross_amount,
       0 AS discount_quantity, 0 AS discount_amount, c AS net_quantity, c / 100 AS net_amount, FALSE AS month_closed,
       TIMESTAMPTZ '2026-11-21 06:00:00+00' AS fetched_at
FROM (SELECT scope, scope_name, day, CAST(sum(ai_credits_used) AS DECIMAL(38, 6)) / 2 AS c
      FROM core.user_daily_totals GROUP BY ALL),
     (VALUES ('Claude Sonnet 4.5'), ('GPT-5.2')) AS t(m)
ORDER BY day;
CREATE TEMP TABLE centers AS
SELECT * FROM (VALUES ('cc-teams', 0.3), ('cc-users', 0.1), ('cc-org', 0.2), ('none', 0.4)) AS c(id, part);
INSERT INTO billing.cost_center_usage BY NAME
SELECT b.scope, b.scope_name, b.day, b.meter, c.id AS cost_center_id, b.product, b.sku, b.model,
       c.id AS cost_center_name, b.unit_type, b.price_per_unit,
       CAST(b.net_quantity * c.part AS DECIMAL(38, 6)) AS net_quantity,
       CAST(b.net_amount * c.part AS DECIMAL(38, 6)) AS net_amount,
       CAST(b.net_amount * c.part AS DECIMAL(38, 6)) AS gross_amount, 0 AS discount_amount, FALSE AS month_closed,
       b.fetched_at
FROM billing.credit_usage AS b, centers AS c
WHERE b.scope = 'enterprise'
ORDER BY b.day;
INSERT INTO billing.cost_centers BY NAME
SELECT d.day AS snapshot_day, 'acme-corp' AS enterprise, c.id AS cost_center_id, 'Center ' || c.id AS name,
       'active' AS state, TIMESTAMPTZ '2026-11-21 06:00:00+00' AS fetched_at
FROM centers AS c, (SELECT day FROM days WHERE day > CAST($last_day AS DATE) - 7) AS d
WHERE c.id <> 'none';
INSERT INTO billing.cost_center_resources BY NAME
SELECT c.snapshot_day, c.enterprise, c.cost_center_id, r.resource_type, r.resource_name, c.fetched_at
FROM billing.cost_centers AS c,
     (SELECT 'cc-teams' AS id, 'Team' AS resource_type, 'team-' || n AS resource_name FROM range(60) AS t(n)
      UNION ALL SELECT 'cc-users', 'User', 'DEV-' || (n * 37) FROM range(200) AS t(n)
      UNION ALL SELECT 'cc-org', 'Organization', 'acme') AS r
WHERE r.id = c.cost_center_id;
"""


# With `vendors`: the organization's seats on the newest day (four in five with a public email),
# and both vendors bought directly: a third of its users on Claude Code (active 60% of days, two
# models each, half API customers), a fifth on Cursor (active 60% of days) with 200 contractors no
# seat names (unmapped), and Cursor's spend read every day, the cycle (a month) to date.
_VENDORS = """
INSERT INTO snapshots.seats BY NAME
SELECT CAST($last_day AS DATE) AS snapshot_day, 'acme' AS org_login, u AS user_id, 'dev-' || u AS login,
       'business' AS plan_type, CASE WHEN u % 5 <> 0 THEN 'dev-' || u || '@example.com' END AS assignee_email
FROM range($users) AS r(u);
INSERT INTO vendors.claude_code_days BY NAME
SELECT d.day, 'user_actor' AS actor_type, 'dev-' || u || '@example.com' AS actor,
       'dev-' || u || '@example.com' AS email,
       CASE WHEN u % 2 = 0 THEN 'api' ELSE 'subscription' END AS customer_type,
       CAST(1 + hash(u, d.day, 3) % 6 AS BIGINT) AS num_sessions,
       CAST(hash(u, d.day, 4) % 900 AS BIGINT) AS lines_added,
       NOT d.provisional AS is_final, TIMESTAMPTZ '2026-11-21 06:00:00+00' AS fetched_at
FROM days AS d, range(0, $users, 3) AS r(u)
WHERE hash(u, d.day, 5) % 10 < 6
ORDER BY d.day;
INSERT INTO vendors.claude_code_models BY NAME
SELECT c.day, c.actor_type, c.actor, c.email, m.model,
       CAST(hash(c.actor, c.day, m.model) % 90000 AS BIGINT) AS input_tokens,
       CAST(hash(c.actor, c.day, m.model) % 30000 AS DECIMAL(38, 6)) / 100 AS estimated_cost_cents, 'USD' AS currency,
       c.is_final, c.fetched_at
FROM vendors.claude_code_days AS c, (VALUES ('claude-sonnet-4-5'), ('claude-opus-4-1')) AS m(model)
ORDER BY c.day;
CREATE TEMP TABLE cursor_people AS
SELECT 'dev-' || u || '@example.com' AS email, u FROM range(0, $users, 5) AS r(u)
UNION ALL SELECT 'contractor-' || n || '@example.net', -1 - n FROM range(200) AS r(n);
INSERT INTO vendors.cursor_days BY NAME
SELECT d.day, p.email, CAST(p.u AS VARCHAR) AS user_id, TRUE AS is_active,
       CAST(hash(p.u, d.day, 6) % 700 AS BIGINT) AS total_lines_added,
       CAST(hash(p.u, d.day, 6) % 300 AS BIGINT) AS accepted_lines_added,
       CAST(hash(p.u, d.day, 7) % 30 AS BIGINT) AS composer_requests,
       CAST(hash(p.u, d.day, 8) % 5 AS BIGINT) AS usage_based_reqs,
       NOT d.provisional AS is_final, TIMESTAMPTZ '2026-11-21 06:00:00+00' AS fetched_at
FROM days AS d, cursor_people AS p
WHERE hash(p.u, d.day, 9) % 10 < 6
ORDER BY d.day;
INSERT INTO vendors.cursor_spend BY NAME
SELECT d.day AS read_day, p.email, CAST(date_trunc('month', d.day) AS DATE) AS cycle_start,
       CAST(day(d.day) * (hash(p.u) % 40) AS DECIMAL(38, 6)) AS spend_cents,
       CAST(day(d.day) * (hash(p.u) % 40 + 100) AS DECIMAL(38, 6))
           AS overall_spend_cents,
       TIMESTAMPTZ '2026-11-21 06:00:00+00' AS fetched_at
FROM days AS d, cursor_people AS p
ORDER BY d.day
"""


def build_warehouse(scratch: Path, users: int, days: int, *, vendors: bool = False) -> duckdb.DuckDBPyConnection:
    conn = connect(scratch / "w.duckdb")
    migrate(conn)
    started = time.perf_counter()
    values = {"users": users, "enterprise_users": users * 3 // 2, "days": days, "last_day": LAST_DAY}
    for statement in (_BUILD + (";" + _VENDORS if vendors else "")).split(";"):
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
