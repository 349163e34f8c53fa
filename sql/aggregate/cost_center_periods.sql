-- aggregate.cost_center_periods: an enterprise's net cost per cost center and 28-day period
-- (bi.cost_by_cost_center), the periods counted back from the newest reported day as every
-- period of the tier. A cost center's figure is the sum of its people's billed lines (each line
-- of the bill is in one cost center or none), so it is shown only where it is known whom it is
-- about and they are $k or more:
--   1. the per-user lines of the usage export (billing.user_usage) of that cost center over the
--      period add up to its figure to the cent: otherwise whom it sums over is not known (an
--      export not landed, a cost center renamed between them), and it is not shown;
--   2. $k or more of those users have a net other than zero: the people behind the figure.
-- Cost centers never share a line, so no difference of two of them is anyone's figure; usage in
-- no cost center ('none') and the enterprise's whole bill are not in the tier, so nothing minus
-- the shown cost centers is either. Such a row stays, suppressed = true, its figure NULL.
CREATE OR REPLACE TEMP TABLE aggregate_cost_center_people AS
-- Who each cost center's period is about: the logins of its lines in the usage export, with their
-- net (read again by team_periods_cost.sql: a team sharing them is not shown beside it); one
-- person whatever the spelling of their login (bi.login_key, sql/views/_login.sql).
WITH bounds AS (
    SELECT max(day) AS last_day
    FROM (SELECT day FROM core.daily_totals UNION ALL SELECT day FROM core.user_report_days)
), names AS (
    -- Every name a cost center went by: the usage answer's and the newest snapshot's.
    SELECT DISTINCT scope_name, cost_center_id, cost_center_name AS name
    FROM billing.cost_center_usage
    WHERE scope = 'enterprise' AND cost_center_name IS NOT NULL
    UNION
    SELECT DISTINCT enterprise, cost_center_id, name FROM billing.cost_centers WHERE name IS NOT NULL
)
SELECT n.scope_name, n.cost_center_id, (b.last_day - u.day) // 28 AS period_index,
       bi.login_key(u.user_login) AS user_login, sum(u.net_amount) AS net_amount
FROM billing.user_usage AS u
CROSS JOIN bounds AS b
JOIN names AS n ON n.scope_name = u.scope_name AND n.name = u.cost_center_name
WHERE u.scope = 'enterprise' AND u.day <= b.last_day
GROUP BY ALL;
CREATE OR REPLACE TEMP TABLE aggregate_cost_center_periods AS
WITH bounds AS (
    SELECT max(day) AS last_day
    FROM (SELECT day FROM core.daily_totals UNION ALL SELECT day FROM core.user_report_days)
), centers AS (
    SELECT c.scope, c.scope_name, (b.last_day - c.day) // 28 AS period_index, any_value(b.last_day) AS last_day,
           c.cost_center_id, max(c.cost_center_name) AS cost_center_name, sum(c.net_amount) AS net_amount
    FROM bi.cost_by_cost_center AS c, bounds AS b
    WHERE c.cost_center_id <> 'none' AND c.day <= b.last_day
    GROUP BY c.scope, c.scope_name, period_index, c.cost_center_id
), people AS (
    SELECT scope_name, cost_center_id, period_index, sum(net_amount) AS net_amount,
           count(*) FILTER (WHERE net_amount <> 0) AS people
    FROM aggregate_cost_center_people
    GROUP BY ALL
)
SELECT
    c.scope,
    c.scope_name,
    c.period_index,
    c.last_day - CAST(28 * c.period_index + 27 AS INTEGER) AS period_start,
    c.last_day - CAST(28 * c.period_index AS INTEGER) AS period_end,
    c.cost_center_id,
    c.cost_center_name,
    NOT coalesce(abs(p.net_amount - c.net_amount) < 0.005 AND p.people >= $k, FALSE) AS suppressed,
    CASE WHEN abs(p.net_amount - c.net_amount) < 0.005 AND p.people >= $k THEN c.net_amount END AS net_amount
FROM centers AS c
LEFT JOIN people AS p
  ON c.scope = 'enterprise' AND p.scope_name = c.scope_name AND p.cost_center_id = c.cost_center_id
 AND p.period_index = c.period_index
ORDER BY c.scope, c.scope_name, c.period_index, c.cost_center_id
