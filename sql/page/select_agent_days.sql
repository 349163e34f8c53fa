-- Daily agent usage of one scope, for the adoption charts.
SELECT day, agent_id, agent_name, agent_job_starts, agent_users
FROM bi.agent_usage_daily
WHERE scope = $scope AND scope_name = $scope_name
ORDER BY day, agent_id;
