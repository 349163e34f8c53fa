-- How does it change across periods? Each agent's job starts per final day with agent data in
-- the last 28 days against the 28 days before (the totals beside them, never compared: periods
-- can differ in days): new, grown, shrunk, gone, or steady when the difference is within the
-- day-to-day noise (its 95% interval beside it), NULL when either period has fewer than 14 such
-- days (compared_days) to compare.
SELECT scope, scope_name, agent_id, agent_name, previous_job_starts_per_day, job_starts_per_day,
       job_starts_per_day_change, job_starts_per_day_change_low, job_starts_per_day_change_high, change,
       compared_days, previous_compared_days,
       previous_agent_job_starts, agent_job_starts
FROM bi.agent_usage_periods
WHERE period_index = 0
ORDER BY scope, scope_name, change, job_starts_per_day_change DESC NULLS LAST, agent_id;
