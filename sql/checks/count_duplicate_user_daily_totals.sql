-- Grain of core.user_daily_totals: one row per scope, scope name, day and user.
-- Over a slice: one report's scope, level and days inside its transaction, or (a NULL scope
-- and the widest days) the whole history in the audit.
SELECT count(*) AS failures, string_agg(scope_name || ' ' || day || ' user ' || user_id, ', ') AS detail
FROM (
    SELECT scope, scope_name, day, user_id FROM core.user_daily_totals
    WHERE day BETWEEN $start_day AND $end_day AND ($scope IS NULL OR (scope = $scope AND scope_name = $scope_name))
    GROUP BY ALL HAVING count(*) > 1
);
