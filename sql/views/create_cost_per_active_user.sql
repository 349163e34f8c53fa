-- bi.cost_per_active_user
-- Grain: one row per scope, scope_name and 28-day period with a bill. Periods count back from the
-- newest reported day of the usage reports as in bi.agent_usage_periods (period_index 0 = the
-- last 28 days), so they line up with the other period views; billed days after that day wait
-- for their usage reports. net_amount: the period's bill (bi.cost_daily's net, billed_days the
-- days it has lines on). active_users: the service's own 28-day active users,
-- monthly_active_users of its aggregate report (core.daily_totals) on the period's newest day
-- that carries it (active_users_day), the service's definition of an active user: not a sum of
-- days, nor our count from user lines. cost_per_active_user = net_amount / active_users in
-- DECIMAL, rounded down to $0.000001 (bi.micro); NULL without active users.
CREATE OR REPLACE VIEW bi.cost_per_active_user AS
WITH bounds AS (
    SELECT max(day) AS last_day
    FROM (SELECT day FROM core.daily_totals UNION ALL SELECT day FROM core.user_report_days)
), costs AS (
    SELECT c.scope, c.scope_name, (b.last_day - c.day) // 28 AS period_index, any_value(b.last_day) AS last_day,
           sum(c.net_amount) AS net_amount, count(DISTINCT c.day) AS billed_days,
           bool_and(coalesce(c.month_closed, FALSE)) AS month_closed
    FROM billing.credit_usage AS c, bounds AS b
    WHERE c.day <= b.last_day
    GROUP BY ALL
), users AS (
    SELECT t.scope, t.scope_name, (b.last_day - t.day) // 28 AS period_index,
           arg_max(t.monthly_active_users, t.day) AS active_users, max(t.day) AS active_users_day
    FROM core.daily_totals AS t, bounds AS b
    WHERE t.monthly_active_users IS NOT NULL
    GROUP BY ALL
)
SELECT
    c.scope,
    c.scope_name,
    c.period_index,
    c.last_day - CAST(28 * c.period_index + 27 AS INTEGER) AS period_start,
    c.last_day - CAST(28 * c.period_index AS INTEGER) AS period_end,
    CAST(c.net_amount AS DECIMAL(38, 6)) AS net_amount,
    c.billed_days,
    c.month_closed,
    u.active_users,
    u.active_users_day,
    CASE WHEN u.active_users > 0 THEN bi.from_micro(bi.micro(c.net_amount) // u.active_users) END
        AS cost_per_active_user
FROM costs AS c
LEFT JOIN users AS u USING (scope, scope_name, period_index);

COMMENT ON VIEW bi.cost_per_active_user IS 'One row per scope and 28-day period (0 = the last 28 days of the usage reports): the period''s net bill, the service''s 28-day active users (monthly_active_users on the period''s newest day) and the net cost per active user (DECIMAL, rounded down to $0.000001).';
