-- The Cost section of the run summary and the page: per scope, its net cost over the newest 28
-- days with billing data (bi.cost_daily) and the 28 before, and the change the one rule calls
-- (sql/views/_change_rule.sql) on the net cost a day. A day of a period from the scope's first
-- billing day on counts, a day without cost lines as a zero (the bill lists no line where
-- nothing was used); open_days: days of a month the service had not closed when fetched (their
-- amounts may still grow with late usage).
WITH bounds AS (
    SELECT scope, scope_name, min(day) AS first_day, max(day) AS last_day
    FROM bi.cost_daily
    GROUP BY ALL
), days AS (
    SELECT b.scope, b.scope_name, CAST(d.day AS DATE) AS day, (b.last_day - CAST(d.day AS DATE)) // 28 AS period_index
    FROM bounds AS b,
         generate_series(CAST(greatest(b.first_day, b.last_day - 55) AS TIMESTAMP), CAST(b.last_day AS TIMESTAMP),
                         INTERVAL 1 DAY) AS d (day)
), daily AS (
    SELECT scope, scope_name, day, sum(gross_amount) AS gross, sum(discount_amount) AS discount,
           sum(net_amount) AS net, bool_or(NOT coalesce(month_closed, FALSE)) AS open
    FROM bi.cost_daily
    GROUP BY ALL
), periods AS (
    SELECT d.scope, d.scope_name, d.period_index, min(d.day) AS period_start, max(d.day) AS period_end,
           count(*) AS days, count(*) FILTER (WHERE c.open) AS open_days,
           coalesce(sum(c.gross), 0) AS gross, coalesce(sum(c.discount), 0) AS discount,
           coalesce(sum(c.net), 0) AS net, coalesce(sum(CAST(c.net AS DOUBLE) * CAST(c.net AS DOUBLE)), 0) AS squares
    FROM days AS d
    LEFT JOIN daily AS c USING (scope, scope_name, day)
    GROUP BY ALL
)
SELECT p.scope, p.scope_name, p.period_start, p.period_end, p.days, p.open_days, p.gross, p.discount, p.net,
       prev.days AS previous_days, prev.net AS previous_net, bi.min_compared_days() AS min_compared_days,
       bi.change_call(CAST(p.net AS DOUBLE), p.squares, p.days, CAST(prev.net AS DOUBLE), prev.squares, prev.days)
           AS change,
       bi.change_low(CAST(p.net AS DOUBLE), p.squares, p.days, CAST(prev.net AS DOUBLE), prev.squares, prev.days)
           AS change_low,
       bi.change_high(CAST(p.net AS DOUBLE), p.squares, p.days, CAST(prev.net AS DOUBLE), prev.squares, prev.days)
           AS change_high
FROM periods AS p
LEFT JOIN periods AS prev ON prev.scope = p.scope AND prev.scope_name = p.scope_name AND prev.period_index = 1
WHERE p.period_index = 0
ORDER BY p.scope = 'enterprise' DESC, p.scope_name;
