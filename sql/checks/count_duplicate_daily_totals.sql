-- Grain of core.daily_totals: one row per scope, scope name and day.
SELECT count(*) AS failures, string_agg(scope_name || ' ' || day, ', ') AS detail
FROM (SELECT scope, scope_name, day FROM core.daily_totals GROUP BY ALL HAVING count(*) > 1);
