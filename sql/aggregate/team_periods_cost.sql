-- aggregate.team_periods_cost: each team's net cost charged back (bi.chargeback_by_team, its
-- 'cost center' and 'credit share' rows; what is unallocated is not in the tier) per 28-day
-- period of aggregate.team_periods. A team's charge is split by its members' reported AI credits
-- (its payers: the members who reported credits in the period), and within one scope a member's
-- part is the same on each of their teams, so within a scope it is a sum over its payers like the
-- team's other sums. Shown only where
--   1. aggregate.team_periods shows the team's period: the tier's rule for a team's sums (its
--      days, the scopes that could hold it or it them, the teams within it) holds for any sum
--      over its members that is the same for a member on each of their teams;
--   2. $k or more of its members reported AI credits in the period;
--   3. none of its payers is behind a cost center shown for the period
--      (aggregate_cost_center_people), and no part of it came by the 'cost center' rule while a
--      cost center of its scope is shown: that rule hands a cost center's whole net to its
--      teams, and a member's bill and their part of a team differ, so a cost center and a team
--      of the same people could differ by the figures of a few;
--   4. no payer of it is a payer of a team of another scope that ranks before its scope (an
--      enterprise before organizations, then by name) and passes 1..3: a member's part differs
--      between scopes (each scope's bill is split apart), so two such teams of nearly the same
--      people could differ by a few people's parts; teams of one scope only may share people.
-- Such a row stays, suppressed = true, its figure NULL.
CREATE OR REPLACE TEMP TABLE aggregate_team_periods_cost AS
WITH bounds AS (
    SELECT max(day) AS last_day
    FROM (SELECT day FROM core.daily_totals UNION ALL SELECT day FROM core.user_report_days)
), kept AS (
    -- bi.chargeback_by_team's rows of teams as this publish computed them before the tier
    -- (billing.team_chargeback, pipelines/warehouse/chargeback.py), each team by its latest slug
    -- as the view names it: allocating every day again here ran out of the publish's memory at a
    -- year of a bill.
    SELECT k.scope, k.scope_name, k.day, k.team_id, coalesce(d.slug, CAST(k.team_id AS VARCHAR)) AS team, k.rule,
           k.net_amount
    FROM billing.team_chargeback AS k
    LEFT JOIN core.dim_team AS d ON d.scope = k.team_scope AND d.scope_name = k.team_scope_name AND d.team_id = k.team_id
    WHERE k.team_id IS NOT NULL
), charged AS (
    SELECT c.scope, c.scope_name, (b.last_day - c.day) // 28 AS period_index, any_value(b.last_day) AS last_day,
           c.team_id, arg_max(c.team, c.day) AS team_slug, sum(c.net_amount) AS net_amount,
           bool_or(c.rule = 'cost center') AS by_cost_center
    FROM kept AS c, bounds AS b
    WHERE c.day <= b.last_day
    GROUP BY c.scope, c.scope_name, period_index, c.team_id
), payers AS (
    -- Their logins as the cost centers' people have them (bi.login_key): the report and the
    -- export may spell one person's login apart.
    SELECT DISTINCT m.scope, m.scope_name, (b.last_day - m.day) // 28 AS period_index, m.team_id,
           bi.login_key(m.user_login) AS user_login
    FROM core.user_team_days AS m
    CROSS JOIN bounds AS b
    JOIN core.user_daily_totals AS u
      ON u.scope = m.scope AND u.scope_name = m.scope_name AND u.day = m.day AND u.user_id = m.user_id
    WHERE u.report_kind = '1-day' AND u.ai_credits_used > 0 AND m.day <= b.last_day
), centers_shown AS (
    SELECT DISTINCT scope, scope_name, period_index FROM aggregate_cost_center_periods WHERE NOT suppressed
), center_people AS (
    SELECT DISTINCT p.period_index, p.user_login
    FROM aggregate_cost_center_people AS p
    JOIN aggregate_cost_center_periods AS c
      ON c.scope = 'enterprise' AND c.scope_name = p.scope_name AND c.cost_center_id = p.cost_center_id
     AND c.period_index = p.period_index
    WHERE NOT c.suppressed AND p.net_amount <> 0
), candidates AS (
    SELECT c.scope, c.scope_name, c.period_index, c.team_id
    FROM charged AS c
    JOIN aggregate_team_periods AS t USING (scope, scope_name, period_index, team_id)
    LEFT JOIN centers_shown AS s USING (scope, scope_name, period_index)
    WHERE NOT t.suppressed
      AND (SELECT count(*) FROM payers AS p
           WHERE p.scope = c.scope AND p.scope_name = c.scope_name AND p.period_index = c.period_index
             AND p.team_id = c.team_id) >= $k
      AND NOT (c.by_cost_center AND s.scope IS NOT NULL)
      AND NOT EXISTS (SELECT 1 FROM payers AS p
                      JOIN center_people AS w ON w.period_index = p.period_index AND w.user_login = p.user_login
                      WHERE p.scope = c.scope AND p.scope_name = c.scope_name AND p.period_index = c.period_index
                        AND p.team_id = c.team_id)
), shown AS (
    SELECT c.*
    FROM candidates AS c
    WHERE NOT EXISTS (
        SELECT 1
        FROM candidates AS o
        JOIN payers AS q ON q.scope = o.scope AND q.scope_name = o.scope_name AND q.period_index = o.period_index
                        AND q.team_id = o.team_id
        JOIN payers AS p ON p.period_index = q.period_index AND p.user_login = q.user_login
        WHERE o.period_index = c.period_index AND (o.scope <> c.scope OR o.scope_name <> c.scope_name)
          AND (o.scope = 'enterprise' AND c.scope <> 'enterprise'
               OR o.scope = c.scope AND o.scope_name < c.scope_name)
          AND p.scope = c.scope AND p.scope_name = c.scope_name AND p.team_id = c.team_id
    )
)
SELECT
    c.scope,
    c.scope_name,
    c.period_index,
    c.last_day - CAST(28 * c.period_index + 27 AS INTEGER) AS period_start,
    c.last_day - CAST(28 * c.period_index AS INTEGER) AS period_end,
    c.team_id,
    c.team_slug,
    s.team_id IS NULL AS suppressed,
    CASE WHEN s.team_id IS NOT NULL THEN c.net_amount END AS net_amount
FROM charged AS c
LEFT JOIN shown AS s USING (scope, scope_name, period_index, team_id)
ORDER BY c.scope, c.scope_name, c.period_index, c.team_id
