-- The aggregate-tier page: scopes with days in the tier, the widest (enterprise) first; the page shows the first.
SELECT scope, scope_name, min(day) AS first_day, max(day) AS last_day
FROM aggregate.scope_daily
GROUP BY scope, scope_name
ORDER BY scope = 'enterprise' DESC, scope_name;
