-- The aggregate-tier page's adoption chart: each agent app's day as the tier shows it (a
-- suppressed day, about fewer than k people, has every figure NULL).
SELECT day, agent_id, agent_name, agent_job_starts, agent_users, suppressed
FROM aggregate.agent_daily
WHERE scope = $scope AND scope_name = $scope_name
ORDER BY day, agent_id;
