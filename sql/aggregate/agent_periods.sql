-- aggregate.agent_periods: bi.agent_usage_periods (distinct users from the reach rollup
-- core.agent_reach, sums from core.agent_days) without any agent-period about fewer than $k
-- people, its users of the agent in the period:
--   1. fewer than $k of them, or a number no user-level report told: not shown;
--   2. a day of the agent in the period not shown by agent_daily: the period minus its shown days
--      would be the hidden days' figures, so not shown;
--   3. the agent's period in a scope that could be a part of another scope's with fewer than $k
--      users left beside its own, or an enterprise's whose shown organizations leave 1..$k-1 of
--      them (or an unknown number) uncounted: not shown, as for days.
-- Such a row stays, suppressed = true, every figure NULL. The change against the previous
-- period is not shown: it is worked out from that period's figures, which may be suppressed.
-- Periods count back from the newest reported day as in the full tier.
CREATE OR REPLACE TEMP TABLE aggregate_agent_periods AS
WITH bounds AS (
    SELECT max(day) AS last_day
    FROM (SELECT day FROM core.daily_totals UNION ALL SELECT day FROM core.user_report_days)
), hidden_days AS (
    SELECT DISTINCT s.scope, s.scope_name, (b.last_day - s.day) // 28 AS period_index, s.agent_id
    FROM aggregate_agent_day_status AS s, bounds AS b
    WHERE NOT s.shown
), periods AS (
    SELECT p.scope, p.scope_name, p.period_index, p.agent_id, p.agent_job_starts AS js, p.agent_sessions AS se,
           p.agent_users AS users,
           coalesce(p.agent_users >= $k, FALSE) AND h.agent_id IS NULL AS over_k
    FROM bi.agent_usage_periods AS p
    LEFT JOIN hidden_days AS h USING (scope, scope_name, period_index, agent_id)
), inside AS (
    SELECT DISTINCT b.scope, b.scope_name, b.period_index, b.agent_id
    FROM periods AS b
    JOIN periods AS a
      ON a.period_index = b.period_index AND a.agent_id = b.agent_id
     AND (a.scope <> b.scope OR a.scope_name <> b.scope_name)
    WHERE a.over_k AND b.over_k
      AND coalesce(b.js <= a.js, TRUE) AND coalesce(b.se <= a.se, TRUE) AND b.users <= a.users
      AND NOT (b.js IS NOT DISTINCT FROM a.js AND b.se IS NOT DISTINCT FROM a.se AND b.users = a.users)
      AND a.users - b.users < $k
), after_pairs AS (
    SELECT p.*, p.over_k AND i.agent_id IS NULL AS shown_so_far
    FROM periods AS p
    LEFT JOIN inside AS i USING (scope, scope_name, period_index, agent_id)
), related AS (
    SELECT DISTINCT r.scope_name, r.enterprise, (b.last_day - r.day) // 28 AS period_index
    FROM core.organization_enterprise_days AS r, bounds AS b
), organizations AS (
    SELECT e.scope_name AS enterprise, o.*
    FROM after_pairs AS e
    JOIN after_pairs AS o
      ON o.period_index = e.period_index AND o.agent_id = e.agent_id AND o.scope = 'organization'
     AND o.shown_so_far
    WHERE e.scope = 'enterprise' AND e.shown_so_far
      AND (EXISTS (SELECT 1 FROM related AS r
                   WHERE r.scope_name = o.scope_name AND r.period_index = o.period_index
                     AND r.enterprise = e.scope_name)
           OR (NOT EXISTS (SELECT 1 FROM related AS r
                           WHERE r.scope_name = o.scope_name AND r.period_index = o.period_index)
               AND coalesce(o.js <= e.js, TRUE) AND coalesce(o.se <= e.se, TRUE) AND o.users <= e.users))
), few_left AS (
    SELECT e.scope_name, e.period_index, e.agent_id
    FROM after_pairs AS e
    JOIN organizations AS o
      ON o.enterprise = e.scope_name AND o.period_index = e.period_index AND o.agent_id = e.agent_id
    WHERE e.scope = 'enterprise'
    GROUP BY e.scope_name, e.period_index, e.agent_id, e.users, e.js, e.se
    HAVING NOT (e.users - sum(o.users) >= $k)
       AND NOT (e.users = sum(o.users) AND e.js IS NOT DISTINCT FROM sum(o.js) AND e.se IS NOT DISTINCT FROM sum(o.se))
), status AS (
    SELECT a.scope, a.scope_name, a.period_index, a.agent_id, a.shown_so_far AND f.agent_id IS NULL AS shown
    FROM after_pairs AS a
    LEFT JOIN few_left AS f
      ON a.scope = 'enterprise' AND f.scope_name = a.scope_name AND f.period_index = a.period_index
     AND f.agent_id = a.agent_id
)
SELECT
    t.scope,
    t.scope_name,
    t.period_index,
    t.period_start,
    t.period_end,
    t.agent_id,
    t.agent_name,
    NOT s.shown AS suppressed,
    CASE WHEN s.shown THEN t.active_days END AS active_days,
    CASE WHEN s.shown THEN t.agent_job_starts END AS agent_job_starts,
    CASE WHEN s.shown THEN t.agent_sessions END AS agent_sessions,
    CASE WHEN s.shown THEN t.agent_users END AS agent_users,
    CASE WHEN s.shown THEN t.job_starts_per_day END AS job_starts_per_day,
    CASE WHEN s.shown THEN t.users_per_day END AS users_per_day
FROM bi.agent_usage_periods AS t
JOIN status AS s USING (scope, scope_name, period_index, agent_id)
ORDER BY t.scope, t.scope_name, t.period_index, t.agent_id
