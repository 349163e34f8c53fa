-- Grain of core.breakdowns: scope, level, day, user and the breakdown's kind and keys.
-- Over a slice: one report's scope, level and days inside its transaction, or (a NULL scope
-- and the widest days) the whole history in the audit.
SELECT count(*) AS failures, string_agg(scope_name || ' ' || day || ' ' || kind, ', ') AS detail
FROM (
    SELECT scope, scope_name, level, day, user_id, kind, ide, feature, language, model
    FROM core.breakdowns
    WHERE day BETWEEN $start_day AND $end_day AND ($scope IS NULL OR (scope = $scope AND scope_name = $scope_name AND level = $level))
    GROUP BY ALL HAVING count(*) > 1
);
