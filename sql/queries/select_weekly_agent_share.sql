-- Which agents lead, week by week? Each agent's share of the week's agent job starts. Days
-- without the agent array are gaps and stay out of the sums; weeks_with_gaps says how many.
WITH weekly AS (
    SELECT u.scope, u.scope_name, date_trunc('week', u.day) AS week, u.agent_id, any_value(u.agent_name) AS agent_name,
           sum(u.agent_job_starts) AS agent_job_starts
    FROM bi.agent_usage_daily AS u
    WHERE u.agent_job_starts IS NOT NULL
    GROUP BY u.scope, u.scope_name, week, u.agent_id
), gaps AS (
    SELECT scope, scope_name, date_trunc('week', day) AS week,
           count(*) FILTER (WHERE agent_job_starts IS NULL) AS days_without_agent_data
    FROM bi.report_coverage
    GROUP BY scope, scope_name, week
)
SELECT w.scope, w.scope_name, CAST(w.week AS DATE) AS week, w.agent_id, w.agent_name, w.agent_job_starts,
       round(w.agent_job_starts / sum(w.agent_job_starts) OVER (PARTITION BY w.scope, w.scope_name, w.week), 3) AS share,
       g.days_without_agent_data
FROM weekly AS w
LEFT JOIN gaps AS g USING (scope, scope_name, week)
ORDER BY w.scope, w.scope_name, week, w.agent_job_starts DESC, w.agent_id;
