-- Period-over-period rows of one scope, newest period first, busiest agent first: totals, day
-- counts and the per-day rates every comparison is made on. user_days: the period's days with a
-- user-level report, which its users are counted from.
SELECT period_index, period_start, period_end, agent_id, agent_name,
       report_days, agent_data_days, provisional_days, compared_days, previous_compared_days,
       agent_job_starts, job_starts_per_day, previous_job_starts_per_day,
       agent_users, users_per_day, previous_users_per_day,
       comparable, job_starts_per_day_change, change,
       job_starts_per_day_change_low, job_starts_per_day_change_high, bi.min_compared_days() AS min_compared_days,
       (SELECT count(*) FROM bi.report_coverage AS c
        WHERE c.scope = p.scope AND c.scope_name = p.scope_name AND c.user_report
          AND c.day BETWEEN p.period_start AND p.period_end) AS user_days
FROM bi.agent_usage_periods AS p
WHERE scope = $scope AND scope_name = $scope_name
ORDER BY period_index, agent_job_starts DESC NULLS LAST, agent_id;
