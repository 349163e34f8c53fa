-- The aggregate-tier page's cost: the last 28 days' net of each cost center and each team's charge
-- as the tier shows them (never the whole bill, what is unallocated or anyone's), the most first,
-- the hidden ones (about fewer than k people, or a difference that would be) last.
SELECT 'Cost center' AS kind, scope || ' ' || scope_name AS scope_label, cost_center_name AS name, suppressed,
       net_amount, period_start, period_end
FROM aggregate.cost_center_periods
WHERE period_index = 0
UNION ALL
SELECT 'Team', scope || ' ' || scope_name, team_slug, suppressed, net_amount, period_start, period_end
FROM aggregate.team_periods_cost
WHERE period_index = 0
ORDER BY kind, scope_label, suppressed, net_amount DESC, name;
