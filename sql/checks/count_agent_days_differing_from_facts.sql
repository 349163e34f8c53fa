-- core.agent_days holds exactly the (scope, level, day, agent_id, agent_name) of core.agent_activity,
-- with their job starts summed.
-- Over a slice: one report's scope, level and days inside its transaction, or (a NULL scope
-- and the widest days) the whole history in the audit.
SELECT count(*) AS failures, string_agg(scope_name || ' ' || day || ' ' || agent_id || ' ' || agent_name, ', ') AS detail
FROM (
    (SELECT scope, scope_name, level, day, agent_id, agent_name, sum(agent_job_starts) FROM core.agent_activity
      WHERE day BETWEEN $start_day AND $end_day
        AND ($scope IS NULL OR (scope = $scope AND scope_name = $scope_name AND level = $level))
      GROUP BY ALL
     EXCEPT
     SELECT scope, scope_name, level, day, agent_id, agent_name, agent_job_starts FROM core.agent_days
      WHERE day BETWEEN $start_day AND $end_day
        AND ($scope IS NULL OR (scope = $scope AND scope_name = $scope_name AND level = $level)))
    UNION ALL
    (SELECT scope, scope_name, level, day, agent_id, agent_name, agent_job_starts FROM core.agent_days
      WHERE day BETWEEN $start_day AND $end_day
        AND ($scope IS NULL OR (scope = $scope AND scope_name = $scope_name AND level = $level))
     EXCEPT
     SELECT scope, scope_name, level, day, agent_id, agent_name, sum(agent_job_starts) FROM core.agent_activity
      WHERE day BETWEEN $start_day AND $end_day
        AND ($scope IS NULL OR (scope = $scope AND scope_name = $scope_name AND level = $level))
      GROUP BY ALL)
);
