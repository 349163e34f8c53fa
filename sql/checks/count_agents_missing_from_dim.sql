-- Every agent_id in the facts has its latest label in core.dim_agent.
-- Over a slice: one report's scope, level and days inside its transaction, or (a NULL scope
-- and the widest days) the whole history in the audit.
SELECT count(*) AS failures, string_agg(agent_id, ', ') AS detail
FROM (
    SELECT DISTINCT agent_id FROM core.agent_activity WHERE day BETWEEN $start_day AND $end_day AND ($scope IS NULL OR (scope = $scope AND scope_name = $scope_name AND level = $level))
    EXCEPT SELECT agent_id FROM core.dim_agent
);
