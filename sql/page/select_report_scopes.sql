-- Scopes with reports, the widest (enterprise) first: the page's charts show the first.
SELECT scope, scope_name, min(day) AS first_day, max(day) AS last_day
FROM bi.report_coverage
GROUP BY scope, scope_name
ORDER BY scope = 'enterprise' DESC, scope_name;
