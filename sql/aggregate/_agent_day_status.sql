-- Which agent-days the tier shows (aggregate_agent_day_status, read by agent_daily and
-- agent_periods). An agent-day's figures are about its users that day (agent_users):
--   1. $k or more of them (a number no user-level report told is not known to be), or not shown;
--   2. the same agent's day in a scope that could be a part of another scope's (each figure at
--      most the other's: an organization within its enterprise) with fewer than $k of the other's
--      users left beside its own: not shown (unless the two are the same figures);
--   3. an enterprise's agent-day whose shown organizations leave 1..$k-1 of its users of the
--      agent uncounted, or an unknown number: not shown, unless nothing is left.
CREATE OR REPLACE TEMP TABLE aggregate_agent_day_status AS
WITH days AS (
    SELECT scope, scope_name, day, agent_id, agent_job_starts AS js, agent_sessions AS se, agent_users AS users,
           coalesce(agent_users >= $k, FALSE) AS over_k
    FROM bi.agent_usage_daily
), inside AS (
    SELECT DISTINCT b.scope, b.scope_name, b.day, b.agent_id
    FROM days AS b
    JOIN days AS a
      ON a.day = b.day AND a.agent_id = b.agent_id AND (a.scope <> b.scope OR a.scope_name <> b.scope_name)
    WHERE a.over_k AND b.over_k
      -- A figure a report did not tell rules nothing out.
      AND coalesce(b.js <= a.js, TRUE) AND coalesce(b.se <= a.se, TRUE) AND b.users <= a.users
      AND NOT (b.js IS NOT DISTINCT FROM a.js AND b.se IS NOT DISTINCT FROM a.se AND b.users = a.users)
      AND a.users - b.users < $k
), after_pairs AS (
    SELECT d.*, d.over_k AND i.day IS NULL AS shown_so_far
    FROM days AS d
    LEFT JOIN inside AS i USING (scope, scope_name, day, agent_id)
), organizations AS (
    SELECT e.scope_name AS enterprise, o.*
    FROM after_pairs AS e
    JOIN after_pairs AS o
      ON o.day = e.day AND o.agent_id = e.agent_id AND o.scope = 'organization' AND o.shown_so_far
    WHERE e.scope = 'enterprise' AND e.shown_so_far
      AND (EXISTS (SELECT 1 FROM core.organization_enterprise_days AS r
                   WHERE r.scope_name = o.scope_name AND r.day = o.day AND r.enterprise = e.scope_name)
           OR (NOT EXISTS (SELECT 1 FROM core.organization_enterprise_days AS r
                           WHERE r.scope_name = o.scope_name AND r.day = o.day)
               AND coalesce(o.js <= e.js, TRUE) AND coalesce(o.se <= e.se, TRUE) AND o.users <= e.users))
), few_left AS (
    SELECT e.scope_name, e.day, e.agent_id
    FROM after_pairs AS e
    JOIN organizations AS o ON o.enterprise = e.scope_name AND o.day = e.day AND o.agent_id = e.agent_id
    WHERE e.scope = 'enterprise'
    GROUP BY e.scope_name, e.day, e.agent_id, e.users, e.js, e.se
    HAVING NOT (e.users - sum(o.users) >= $k)
       AND NOT (e.users = sum(o.users) AND e.js IS NOT DISTINCT FROM sum(o.js) AND e.se IS NOT DISTINCT FROM sum(o.se))
)
SELECT a.scope, a.scope_name, a.day, a.agent_id,
       a.shown_so_far AND f.day IS NULL AS shown
FROM after_pairs AS a
LEFT JOIN few_left AS f
  ON a.scope = 'enterprise' AND f.scope_name = a.scope_name AND f.day = a.day AND f.agent_id = a.agent_id
