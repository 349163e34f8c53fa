-- Grain of core.agent_activity: scope, level, day, user (NULL at aggregate level) and agent_id.
-- Over a slice: one report's scope, level and days inside its transaction, or (a NULL scope
-- and the widest days) the whole history in the audit.
SELECT count(*) AS failures, string_agg(scope_name || ' ' || day || ' ' || agent_id, ', ') AS detail
FROM (
    SELECT scope, scope_name, level, day, user_id, agent_id
    FROM core.agent_activity
    WHERE day BETWEEN $start_day AND $end_day AND ($scope IS NULL OR (scope = $scope AND scope_name = $scope_name AND level = $level))
    GROUP BY ALL HAVING count(*) > 1
);
