-- The page's Cost chart: each scope's net cost a day over its newest 56 days with billing data
-- (bi.cost_daily), a day of a month the service had not closed when fetched marked open.
WITH bounds AS (
    SELECT scope, scope_name, max(day) AS last_day FROM bi.cost_daily GROUP BY ALL
)
SELECT c.scope, c.scope_name, c.day, sum(c.net_amount) AS net, bool_or(NOT coalesce(c.month_closed, FALSE)) AS open
FROM bi.cost_daily AS c
JOIN bounds AS b ON b.scope = c.scope AND b.scope_name = c.scope_name AND c.day > b.last_day - 56
GROUP BY c.scope, c.scope_name, c.day
ORDER BY c.scope = 'enterprise' DESC, c.scope_name, c.day;
