-- The page's teams section: the agent apps each team's members used in the last 28 days, with
-- job starts summed over the days (users per day are in bi.team_agent_usage_daily).
SELECT team_id, agent_name, CAST(sum(agent_job_starts) AS BIGINT) AS agent_job_starts
FROM bi.team_agent_usage_daily
WHERE scope = $scope AND scope_name = $scope_name
  AND day > (SELECT max(day) FROM bi.team_agent_usage_daily WHERE scope = $scope AND scope_name = $scope_name) - 28
GROUP BY ALL
ORDER BY team_id, agent_job_starts DESC, agent_name;
