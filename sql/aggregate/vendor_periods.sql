-- aggregate.vendor_periods: aggregate.vendor_daily's sources per 28-day period, counted back from
-- the newest day the service reported as the other period tables are (a vendor's days after it
-- are in no period yet): the distinct active people of the period and its days' sums, from
-- bi.assistant_usage_daily's counted rows, and the cost placed on its days (cost_usd,
-- subscription_estimate_usd: as vendor_daily.sql, NULL for the service's and agent apps' bill,
-- which is the scope's). A person with a cost in the period is behind its sums. Not shown when:
--   1. fewer than $k active people;
--   2. a day of the source in the period hidden in vendor_daily (the period minus its shown days
--      would be the hidden days' figures);
--   3. a shown figure of the same kind and period that could hold it, or that it could hold, with
--      active people fewer than $k apart, unless the same figures (as vendor_daily's rule 2: the
--      source in another scope; for `service` aggregate.scope_periods' 28-day active users and
--      aggregate.team_periods' active users, with their interactions; for `agent:<id>`
--      aggregate.agent_periods' users and job starts);
--   4. an enterprise whose shown organizations leave 1..$k-1 of its active people (or of the people
--      behind its sums, cost included) uncounted.
-- Such a row stays, suppressed = true, every figure NULL. Runs after vendor_daily (name order),
-- reading the people's costs it wrote (aggregate_vendor_costs), dropped here.
CREATE OR REPLACE TEMP TABLE aggregate_vendor_periods AS
WITH bounds AS (
    SELECT max(day) AS last_day
    FROM (SELECT day FROM core.daily_totals UNION ALL SELECT day FROM core.user_report_days)
), people AS (
    -- One row a person a source-period, then the period's people are counted rows (never a
    -- DISTINCT's hash set of a year of names).
    SELECT u.scope, u.scope_name, (b.last_day - u.day) // 28 AS period_index, u.source, u.person,
           any_value(b.last_day) AS last_day,
           bool_or(u.counted AND u.active) AS active,
           bool_or(u.counted AND (coalesce(u.requests, 0) <> 0 OR coalesce(u.agent_job_starts, 0) <> 0
               OR coalesce(u.sessions, 0) <> 0 OR coalesce(u.lines_added, 0) <> 0
               OR coalesce(u.lines_accepted, 0) <> 0 OR coalesce(u.cost_usd, 0) <> 0
               OR coalesce(u.subscription_estimate_usd, 0) <> 0)) AS figured,
           sum(u.requests) FILTER (WHERE u.counted) AS requests,
           sum(u.agent_job_starts) FILTER (WHERE u.counted) AS agent_job_starts,
           sum(u.sessions) FILTER (WHERE u.counted) AS sessions,
           sum(u.lines_added) FILTER (WHERE u.counted) AS lines_added,
           sum(u.lines_accepted) FILTER (WHERE u.counted) AS lines_accepted,
           sum(u.cost_usd) AS cost_usd,
           sum(u.subscription_estimate_usd) AS subscription_estimate_usd,
           bool_and(u.is_final) AS is_final
    FROM (SELECT scope, scope_name, day, source, person, counted, active, requests, agent_job_starts, sessions,
                 lines_added, lines_accepted, is_final
          FROM bi.assistant_usage_rows()
          UNION ALL BY NAME
          SELECT * FROM aggregate_vendor_costs) AS u, bounds AS b
    WHERE u.day <= b.last_day
    GROUP BY u.scope, u.scope_name, (b.last_day - u.day) // 28, u.source, u.person
), grouped AS (
    SELECT scope, scope_name, period_index, source, any_value(last_day) AS last_day,
           count(*) FILTER (WHERE active) AS active_people,
           count(*) FILTER (WHERE figured) AS figured_people,
           CAST(sum(requests) AS BIGINT) AS requests,
           CAST(sum(agent_job_starts) AS BIGINT) AS agent_job_starts,
           CAST(sum(sessions) AS BIGINT) AS sessions,
           CAST(sum(lines_added) AS BIGINT) AS lines_added,
           CAST(sum(lines_accepted) AS BIGINT) AS lines_accepted,
           CAST(sum(cost_usd) AS DECIMAL(38, 8)) AS cost_usd,
           CAST(sum(subscription_estimate_usd) AS DECIMAL(38, 8)) AS subscription_estimate_usd,
           bool_and(is_final) AS is_final
    FROM people
    GROUP BY scope, scope_name, period_index, source
), hidden_days AS (
    SELECT DISTINCT d.scope, d.scope_name, (b.last_day - d.day) // 28 AS period_index, d.source
    FROM aggregate_vendor_daily AS d, bounds AS b
    WHERE d.suppressed AND d.day <= b.last_day
), periods AS (
    SELECT g.scope, g.scope_name, g.period_index, g.source, g.active_people AS people, g.figured_people AS fig,
           g.requests AS r, g.agent_job_starts AS j, g.sessions AS se, g.lines_added AS la, g.lines_accepted AS lc,
           g.cost_usd AS c, g.subscription_estimate_usd AS ce,
           g.active_people >= $k AND NOT (g.figured_people BETWEEN 1 AND $k - 1) AND h.source IS NULL AS over_k,
           TRUE AS mine
    FROM grouped AS g
    LEFT JOIN hidden_days AS h USING (scope, scope_name, period_index, source)
), shown AS (
    SELECT * FROM periods WHERE over_k
    UNION ALL
    SELECT scope, scope_name, period_index, 'service', monthly_active_users, NULL, user_initiated_interaction_count,
           NULL, NULL, loc_added_sum, NULL, NULL, NULL, TRUE, FALSE
    FROM aggregate_scope_periods WHERE NOT suppressed
    UNION ALL
    SELECT scope, scope_name || '#' || team_id, period_index, 'service', active_users, NULL,
           user_initiated_interaction_count, NULL, NULL, NULL, NULL, NULL, NULL, TRUE, FALSE
    FROM aggregate_team_periods WHERE NOT suppressed
    UNION ALL
    SELECT scope, scope_name, period_index, 'agent:' || agent_id, agent_users, NULL, NULL, agent_job_starts, NULL, NULL,
           NULL, NULL, NULL, TRUE, FALSE
    FROM aggregate_agent_periods WHERE NOT suppressed
), near AS (
    SELECT DISTINCT b.scope, b.scope_name, b.period_index, b.source
    FROM periods AS b
    JOIN shown AS a
      ON a.period_index = b.period_index AND a.source = b.source
     AND NOT (a.mine AND a.scope = b.scope AND a.scope_name = b.scope_name)
    WHERE b.over_k
      AND ((coalesce(b.r <= a.r, TRUE) AND coalesce(b.j <= a.j, TRUE) AND coalesce(b.se <= a.se, TRUE)
            AND coalesce(b.la <= a.la, TRUE) AND coalesce(b.lc <= a.lc, TRUE) AND coalesce(b.c <= a.c, TRUE)
            AND coalesce(b.ce <= a.ce, TRUE) AND (NOT a.mine OR b.people <= a.people))
           OR (NOT a.mine AND coalesce(a.r <= b.r, TRUE) AND coalesce(a.j <= b.j, TRUE)
               AND coalesce(a.la <= b.la, TRUE)))
      AND NOT (b.people = a.people AND b.fig = coalesce(a.fig, b.fig) AND b.r IS NOT DISTINCT FROM a.r
               AND b.j IS NOT DISTINCT FROM a.j
               AND b.se IS NOT DISTINCT FROM a.se AND b.la IS NOT DISTINCT FROM a.la
               AND b.lc IS NOT DISTINCT FROM a.lc AND b.c IS NOT DISTINCT FROM a.c
               AND b.ce IS NOT DISTINCT FROM a.ce)
      AND (abs(a.people - b.people) < $k OR abs(coalesce(a.fig, a.people) - b.fig) < $k)
), after_pairs AS (
    SELECT p.*, p.over_k AND n.source IS NULL AS shown_so_far
    FROM periods AS p
    LEFT JOIN near AS n USING (scope, scope_name, period_index, source)
), related AS (
    SELECT DISTINCT r.scope_name, r.enterprise, (b.last_day - r.day) // 28 AS period_index
    FROM core.organization_enterprise_days AS r, bounds AS b
), organizations AS (
    SELECT e.scope_name AS enterprise, o.*
    FROM after_pairs AS e
    JOIN after_pairs AS o
      ON o.period_index = e.period_index AND o.source = e.source AND o.scope = 'organization' AND o.shown_so_far
    WHERE e.scope = 'enterprise' AND e.shown_so_far
      AND (EXISTS (SELECT 1 FROM related AS r
                   WHERE r.scope_name = o.scope_name AND r.period_index = o.period_index
                     AND r.enterprise = e.scope_name)
           OR (NOT EXISTS (SELECT 1 FROM related AS r
                           WHERE r.scope_name = o.scope_name AND r.period_index = o.period_index)
               AND coalesce(o.r <= e.r, TRUE) AND coalesce(o.j <= e.j, TRUE) AND coalesce(o.se <= e.se, TRUE)
               AND coalesce(o.la <= e.la, TRUE) AND coalesce(o.lc <= e.lc, TRUE) AND coalesce(o.c <= e.c, TRUE)
               AND coalesce(o.ce <= e.ce, TRUE) AND o.people <= e.people))
), few_left AS (
    SELECT e.scope_name, e.period_index, e.source
    FROM after_pairs AS e
    JOIN organizations AS o ON o.enterprise = e.scope_name AND o.period_index = e.period_index AND o.source = e.source
    WHERE e.scope = 'enterprise'
    GROUP BY e.scope_name, e.period_index, e.source, e.people, e.fig, e.r, e.j, e.se, e.la, e.lc, e.c, e.ce
    -- What is left of the enterprise: no active people or k or more, and no people behind its sums
    -- (the same sums) or k or more.
    HAVING NOT ((e.people - sum(o.people) >= $k OR e.people = sum(o.people))
                AND (e.fig - sum(o.fig) >= $k
                     OR (e.fig = sum(o.fig) AND e.r IS NOT DISTINCT FROM sum(o.r)
                         AND e.j IS NOT DISTINCT FROM sum(o.j) AND e.se IS NOT DISTINCT FROM sum(o.se)
                         AND e.la IS NOT DISTINCT FROM sum(o.la) AND e.lc IS NOT DISTINCT FROM sum(o.lc)
                         AND e.c IS NOT DISTINCT FROM sum(o.c) AND e.ce IS NOT DISTINCT FROM sum(o.ce))))
), status AS (
    SELECT a.scope, a.scope_name, a.period_index, a.source, a.shown_so_far AND f.source IS NULL AS shown
    FROM after_pairs AS a
    LEFT JOIN few_left AS f
      ON a.scope = 'enterprise' AND f.scope_name = a.scope_name AND f.period_index = a.period_index
     AND f.source = a.source
)
SELECT
    g.scope,
    g.scope_name,
    g.period_index,
    g.last_day - CAST(28 * g.period_index + 27 AS INTEGER) AS period_start,
    g.last_day - CAST(28 * g.period_index AS INTEGER) AS period_end,
    g.source,
    NOT s.shown AS suppressed,
    CASE WHEN s.shown THEN g.active_people END AS active_people,
    CASE WHEN s.shown THEN g.requests END AS requests,
    CASE WHEN s.shown THEN g.agent_job_starts END AS agent_job_starts,
    CASE WHEN s.shown THEN g.sessions END AS sessions,
    CASE WHEN s.shown THEN g.lines_added END AS lines_added,
    CASE WHEN s.shown THEN g.lines_accepted END AS lines_accepted,
    CASE WHEN s.shown THEN g.cost_usd END AS cost_usd,
    CASE WHEN s.shown THEN g.subscription_estimate_usd END AS subscription_estimate_usd,
    g.is_final
FROM grouped AS g
JOIN status AS s USING (scope, scope_name, period_index, source)
ORDER BY g.scope, g.scope_name, g.period_index, g.source;
DROP TABLE aggregate_vendor_costs;
