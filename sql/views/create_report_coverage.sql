-- bi.report_coverage
-- Grain: one row per scope, scope_name and calendar day, from the first to the last reported
-- day of the scope (days without any report are rows too, so gaps show).
-- aggregate_report / user_report: whether a report of that level landed for the day.
-- aggregate_agent_array: whether the aggregate report carried totals_by_3rd_party_agent (NULL
-- when there is no report). users_with_agent_array: user-level records carrying the array (NULL
-- when there is no user-level report). agent_job_starts: the day's aggregate agent job starts,
-- NULL when the array is missing: an omitted array means "nothing recognized", not zero.
-- is_final: every report of the day was fetched after the day was final (NULL: no report).
-- status reads: 'agents reported', 'no agent array', 'user level only', or 'no report'.
CREATE OR REPLACE VIEW bi.report_coverage AS
WITH aggregate_level AS (
    SELECT scope, scope_name, day, bool_or(agent_breakdown_present) AS carried, bool_and(is_final) AS final
    FROM core.daily_totals
    GROUP BY scope, scope_name, day
), user_level AS (
    SELECT scope, scope_name, day, user_records, users_with_agent_array, is_final AS final
    FROM core.user_report_days
), job_starts AS (
    SELECT scope, scope_name, day, CAST(sum(agent_job_starts) AS BIGINT) AS agent_job_starts
    FROM core.agent_days
    WHERE level = 'aggregate'
    GROUP BY scope, scope_name, day
), reported AS (
    SELECT scope, scope_name, day FROM aggregate_level
    UNION
    SELECT scope, scope_name, day FROM user_level
), calendar AS (
    SELECT scope, scope_name, CAST(unnest(generate_series(min(day), max(day), INTERVAL 1 DAY)) AS DATE) AS day
    FROM reported
    GROUP BY scope, scope_name
)
SELECT
    c.scope,
    c.scope_name,
    c.day,
    a.day IS NOT NULL AS aggregate_report,
    a.carried AS aggregate_agent_array,
    u.day IS NOT NULL AS user_report,
    u.user_records,
    u.users_with_agent_array,
    CASE WHEN a.carried THEN coalesce(j.agent_job_starts, 0) END AS agent_job_starts,
    CASE WHEN a.day IS NOT NULL OR u.day IS NOT NULL
         THEN coalesce(a.final, TRUE) AND coalesce(u.final, TRUE) END AS is_final,
    CASE
        WHEN a.carried THEN 'agents reported'
        WHEN a.day IS NOT NULL THEN 'no agent array'
        WHEN u.day IS NOT NULL THEN 'user level only'
        ELSE 'no report'
    END AS status
FROM calendar AS c
LEFT JOIN aggregate_level AS a USING (scope, scope_name, day)
LEFT JOIN user_level AS u USING (scope, scope_name, day)
LEFT JOIN job_starts AS j USING (scope, scope_name, day);

COMMENT ON VIEW bi.report_coverage IS 'One row per scope and calendar day: whether an aggregate and a user-level report exist and whether they carried the agent array. NULL agent_job_starts = gap (no array or no report), never 0.';
