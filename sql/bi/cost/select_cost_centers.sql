-- The Cost section's cost centers: each scope's net cost per cost center (bi.cost_by_cost_center)
-- over the same newest 28 days with billing data as select_periods.sql, the most first; the
-- usage of no cost center is its own row (cost_center_id 'none'), so the rows add up to the bill.
WITH bounds AS (
    SELECT scope, scope_name, max(day) AS last_day FROM bi.cost_daily GROUP BY ALL
)
SELECT c.scope, c.scope_name, c.cost_center_id, any_value(c.cost_center_name) AS cost_center_name,
       sum(c.net_amount) AS net
FROM bi.cost_by_cost_center AS c
JOIN bounds AS b ON b.scope = c.scope AND b.scope_name = c.scope_name AND c.day BETWEEN b.last_day - 27 AND b.last_day
GROUP BY c.scope, c.scope_name, c.cost_center_id
ORDER BY c.scope = 'enterprise' DESC, c.scope_name, c.cost_center_id = 'none', net DESC, c.cost_center_id;
