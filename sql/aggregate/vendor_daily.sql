-- aggregate.vendor_daily: every coding assistant side by side (issue 47), per scope, day and source
-- (`service`: the service's own surfaces; `agent:<id>`: a third-party agent app through the
-- service; `claude_code`, `cursor`: the vendor's own figures), from bi.assistant_usage_daily's
-- counted rows (an agent app's row beside its vendor's own row of the same person and day is in the
-- vendor's): active_people and the source's sums (NULL where it has none). People no login is known
-- for are counted (scope `vendor`, scope_name the vendor), never named. Cost (bi.assistant_cost_daily,
-- DECIMAL dollars, exact): cost_usd, what the vendor bills (Claude Code's api_estimate, Cursor's
-- on-demand spend: its growth since the previous read, on the read's day), and
-- subscription_estimate_usd, Anthropic's estimate for seats a subscription pays (billed nowhere);
-- NULL where no cost of the kind is placed on the day. The service's bill and an agent app's are the
-- scope's, about nobody in particular, and the tier never shows a whole bill (team_periods_cost.sql,
-- cost_center_periods.sql: cost only where the people behind it are known): NULL on their rows. A
-- person with a cost is behind the day's sums (figured people) though they used nothing that day.
-- A source-day's figures are about its active people:
--   1. fewer than $k of them: not shown;
--   2. a shown figure of the same kind and day that could hold it, or that it could hold (each sum,
--      cost too, at most the other's; between two rows of this table, the smaller is hidden), whose active
--      people are fewer than $k apart from its own, unless the two are the same figures: not shown.
--      Of the same kind: the same source in another scope; for `service`, aggregate.scope_daily's
--      and aggregate.team_daily's days (their active users, interactions and lines added: the
--      service's count and a team's are other definitions of active, so containment is judged by
--      the sums alone); for `agent:<id>`, aggregate.agent_daily's day of the app (its users, job
--      starts), whose users this row's leave out where they used the app's vendor directly;
--   3. an enterprise whose shown organizations leave 1..$k-1 of its active people (or of the people
--      behind its sums, cost included) uncounted, or an unknown number: not shown, unless nothing is left.
-- Such a row stays, suppressed = true, every figure NULL. Runs after the tables it reads (name order).
-- A person's cost of a vendor's day first, on its own (vendor_periods.sql reads it too): beside a
-- year of usage rows in one query its aggregate and Cursor's window do not fit 256 MB; order is
-- not kept while it is written (only aggregates read it), which is what lets it spill.
SET preserve_insertion_order = false;
CREATE OR REPLACE TEMP TABLE aggregate_vendor_costs AS
    -- A person's cost of a vendor's day, billed or not (the bill of `service` is the scope's: not here).
    -- The views' rows without their teams (bi.assistant_*_rows(): a year of teams does not fit
    -- the publish's memory, and the tier needs none).
    SELECT scope, scope_name, day, source, person, TRUE AS counted, FALSE AS active,
           CAST(sum(amount_usd) FILTER (WHERE billed) AS DECIMAL(38, 8)) AS cost_usd,
           CAST(sum(amount_usd) FILTER (WHERE NOT billed) AS DECIMAL(38, 8)) AS subscription_estimate_usd,
           bool_and(is_final) AS is_final
    FROM bi.assistant_cost_rows()
    WHERE person IS NOT NULL
    GROUP BY ALL;
RESET preserve_insertion_order;
CREATE OR REPLACE TEMP TABLE aggregate_vendor_daily AS
WITH people AS (
    -- One row a person a source-day (a person with cost on a day without use, Cursor's read day, is
    -- behind the day's sums too); then the day's people are counted rows, never a DISTINCT's
    -- hash set of a year of names.
    SELECT scope, scope_name, day, source, person,
           bool_or(counted AND active) AS active,
           bool_or(counted AND (coalesce(requests, 0) <> 0 OR coalesce(agent_job_starts, 0) <> 0
               OR coalesce(sessions, 0) <> 0 OR coalesce(lines_added, 0) <> 0 OR coalesce(lines_accepted, 0) <> 0
               OR coalesce(cost_usd, 0) <> 0 OR coalesce(subscription_estimate_usd, 0) <> 0)) AS figured,
           sum(requests) FILTER (WHERE counted) AS requests,
           sum(agent_job_starts) FILTER (WHERE counted) AS agent_job_starts,
           sum(sessions) FILTER (WHERE counted) AS sessions,
           sum(lines_added) FILTER (WHERE counted) AS lines_added,
           sum(lines_accepted) FILTER (WHERE counted) AS lines_accepted,
           sum(cost_usd) AS cost_usd,
           sum(subscription_estimate_usd) AS subscription_estimate_usd,
           bool_and(is_final) AS is_final
    FROM (SELECT scope, scope_name, day, source, person, counted, active, requests, agent_job_starts, sessions,
                 lines_added, lines_accepted, is_final
          FROM bi.assistant_usage_rows()
          UNION ALL BY NAME
          SELECT * FROM aggregate_vendor_costs)
    GROUP BY scope, scope_name, day, source, person
), grouped AS (
    SELECT scope, scope_name, day, source,
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
    GROUP BY ALL
), days AS (
    SELECT scope, scope_name, day, source, active_people AS people, figured_people AS fig, requests AS r,
           agent_job_starts AS j, sessions AS se, lines_added AS la, lines_accepted AS lc, cost_usd AS c,
           subscription_estimate_usd AS ce, active_people >= $k AND NOT (figured_people BETWEEN 1 AND $k - 1) AS over_k, TRUE AS mine
    FROM grouped
), shown AS (
    SELECT * FROM days WHERE over_k
    UNION ALL
    SELECT scope, scope_name, day, 'service', daily_active_users, NULL, user_initiated_interaction_count, NULL, NULL,
           loc_added_sum, NULL, NULL, NULL, TRUE, FALSE
    FROM aggregate_scope_daily WHERE NOT suppressed
    UNION ALL
    SELECT scope, scope_name || '#' || team_id, day, 'service', active_users, NULL, user_initiated_interaction_count,
           NULL, NULL, loc_added_sum, NULL, NULL, NULL, TRUE, FALSE
    FROM aggregate_team_daily WHERE NOT suppressed
    UNION ALL
    SELECT scope, scope_name, day, 'agent:' || agent_id, agent_users, NULL, NULL, agent_job_starts, NULL, NULL, NULL,
           NULL, NULL, TRUE, FALSE
    FROM aggregate_agent_daily WHERE NOT suppressed
), near AS (
    SELECT DISTINCT b.scope, b.scope_name, b.day, b.source
    FROM days AS b
    JOIN shown AS a
      ON a.day = b.day AND a.source = b.source
     AND NOT (a.mine AND a.scope = b.scope AND a.scope_name = b.scope_name)
    WHERE b.over_k
      -- A sum a source does not have rules nothing out.
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
    SELECT d.*, d.over_k AND n.day IS NULL AS shown_so_far
    FROM days AS d
    LEFT JOIN near AS n USING (scope, scope_name, day, source)
), organizations AS (
    SELECT e.scope_name AS enterprise, o.*
    FROM after_pairs AS e
    JOIN after_pairs AS o ON o.day = e.day AND o.source = e.source AND o.scope = 'organization' AND o.shown_so_far
    WHERE e.scope = 'enterprise' AND e.shown_so_far
      AND (EXISTS (SELECT 1 FROM core.organization_enterprise_days AS r
                   WHERE r.scope_name = o.scope_name AND r.day = o.day AND r.enterprise = e.scope_name)
           OR (NOT EXISTS (SELECT 1 FROM core.organization_enterprise_days AS r
                           WHERE r.scope_name = o.scope_name AND r.day = o.day)
               AND coalesce(o.r <= e.r, TRUE) AND coalesce(o.j <= e.j, TRUE) AND coalesce(o.se <= e.se, TRUE)
               AND coalesce(o.la <= e.la, TRUE) AND coalesce(o.lc <= e.lc, TRUE) AND coalesce(o.c <= e.c, TRUE)
               AND coalesce(o.ce <= e.ce, TRUE) AND o.people <= e.people))
), few_left AS (
    SELECT e.scope_name, e.day, e.source
    FROM after_pairs AS e
    JOIN organizations AS o ON o.enterprise = e.scope_name AND o.day = e.day AND o.source = e.source
    WHERE e.scope = 'enterprise'
    GROUP BY e.scope_name, e.day, e.source, e.people, e.fig, e.r, e.j, e.se, e.la, e.lc, e.c, e.ce
    -- What is left of the enterprise: no active people or k or more, and no people behind its sums
    -- (the same sums) or k or more.
    HAVING NOT ((e.people - sum(o.people) >= $k OR e.people = sum(o.people))
                AND (e.fig - sum(o.fig) >= $k
                     OR (e.fig = sum(o.fig) AND e.r IS NOT DISTINCT FROM sum(o.r)
                         AND e.j IS NOT DISTINCT FROM sum(o.j) AND e.se IS NOT DISTINCT FROM sum(o.se)
                         AND e.la IS NOT DISTINCT FROM sum(o.la) AND e.lc IS NOT DISTINCT FROM sum(o.lc)
                         AND e.c IS NOT DISTINCT FROM sum(o.c) AND e.ce IS NOT DISTINCT FROM sum(o.ce))))
), status AS (
    SELECT a.scope, a.scope_name, a.day, a.source, a.shown_so_far AND f.day IS NULL AS shown
    FROM after_pairs AS a
    LEFT JOIN few_left AS f
      ON a.scope = 'enterprise' AND f.scope_name = a.scope_name AND f.day = a.day AND f.source = a.source
)
SELECT
    g.scope,
    g.scope_name,
    g.day,
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
JOIN status AS s USING (scope, scope_name, day, source)
ORDER BY g.scope, g.scope_name, g.day, g.source
