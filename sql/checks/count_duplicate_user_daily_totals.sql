-- Grain of core.user_daily_totals: one row per scope, scope name, day and user.
SELECT count(*) AS failures, string_agg(scope_name || ' ' || day || ' user ' || user_id, ', ') AS detail
FROM (SELECT scope, scope_name, day, user_id FROM core.user_daily_totals GROUP BY ALL HAVING count(*) > 1);
