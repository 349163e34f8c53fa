-- Which third-party agent apps are in use? One row per scope and agent over the last 28 days of
-- reports, busiest first. Grouped on agent_id; agent_name is the latest label.
SELECT scope, scope_name, agent_id, agent_name, agent_job_starts, agent_sessions, agent_users, active_days
FROM bi.agent_usage_periods
WHERE period_index = 0 AND agent_job_starts > 0
ORDER BY scope, scope_name, agent_job_starts DESC, agent_id;
