-- How does it change across periods? Each agent's job starts in the last 28 days against the 28
-- days before: new, grown, shrunk, gone or unchanged (NULL when there is nothing to compare).
SELECT scope, scope_name, agent_id, agent_name, previous_agent_job_starts, agent_job_starts,
       agent_job_starts_change, change, report_days, previous_report_days
FROM bi.agent_usage_periods
WHERE period_index = 0
ORDER BY scope, scope_name, change, agent_job_starts_change DESC NULLS LAST, agent_id;
