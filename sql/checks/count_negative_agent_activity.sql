-- No count below zero in core.agent_activity.
-- Over a slice: one report's scope, level and days inside its transaction, or (a NULL scope
-- and the widest days) the whole history in the audit.
SELECT count(*) AS failures, string_agg(DISTINCT scope_name || ' ' || day || ' ' || agent_id, ', ') AS detail
FROM core.agent_activity
WHERE day BETWEEN $start_day AND $end_day AND ($scope IS NULL OR (scope = $scope AND scope_name = $scope_name AND level = $level))
  AND (agent_job_starts < 0 OR session_count < 0);
