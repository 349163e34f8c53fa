-- Period-over-period rows of one scope, newest period first, busiest agent first.
SELECT period_index, period_start, period_end, agent_id, agent_name, report_days, previous_report_days,
       agent_job_starts, previous_agent_job_starts, agent_users, previous_agent_users, change
FROM bi.agent_usage_periods
WHERE scope = $scope AND scope_name = $scope_name
ORDER BY period_index, agent_job_starts DESC NULLS LAST, agent_id;
