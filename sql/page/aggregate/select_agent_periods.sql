-- The aggregate-tier page's period tables: the last two 28-day periods of each agent app as the
-- tier shows them (no change is called: the tier does not publish one), busiest first.
SELECT period_index, period_start, period_end, agent_id, agent_name, suppressed,
       agent_job_starts, job_starts_per_day, agent_users, users_per_day
FROM aggregate.agent_periods
WHERE scope = $scope AND scope_name = $scope_name AND period_index <= 1
ORDER BY period_index, suppressed, agent_job_starts DESC NULLS LAST, agent_id;
