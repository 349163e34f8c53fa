-- Every scope's calendar of reports and agent arrays, and whether each day was final when fetched.
SELECT scope, scope_name, day, status, agent_job_starts, user_records, users_with_agent_array, is_final
FROM bi.report_coverage
ORDER BY scope = 'enterprise' DESC, scope_name, day;
