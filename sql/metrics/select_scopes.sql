-- The scopes the tier holds.
SELECT DISTINCT scope, scope_name FROM metrics_calendar ORDER BY ALL
