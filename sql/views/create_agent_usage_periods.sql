-- bi.agent_usage_periods
-- Grain: one row per scope, scope_name, 28-day period and agent_id that had activity in that
-- period or in the one before. Periods are counted back from the newest reported day, so
-- period_index 0 is "the last 28 days", 1 the 28 days before, and so on.
-- agent_job_starts and agent_sessions sum the aggregate report's days; agent_users counts
-- distinct users with the agent in the period's user-level records. A measure is NULL when no
-- report of its level in the period carried the agent array (a gap, not a zero).
-- change compares agent_job_starts with the previous period: new, grown, shrunk, gone or
-- unchanged; NULL when the previous period has no reported days to compare with. Grown and
-- shrunk compare job starts per reported day, as periods can differ in report_days.
CREATE OR REPLACE VIEW bi.agent_usage_periods AS
WITH bounds AS (
    SELECT max(day) AS last_day
    FROM (SELECT day FROM core.daily_totals UNION ALL SELECT day FROM core.user_daily_totals)
), aggregate_days AS (
    SELECT t.scope, t.scope_name, (b.last_day - t.day) // 28 AS period_index,
           count(DISTINCT t.day) AS report_days,
           count(DISTINCT t.day) FILTER (WHERE t.agent_breakdown_present) AS agent_array_days
    FROM core.daily_totals AS t, bounds AS b
    GROUP BY ALL
), user_days AS (
    SELECT t.scope, t.scope_name, (b.last_day - t.day) // 28 AS period_index,
           count(DISTINCT t.day) FILTER (WHERE t.agent_breakdown_present) AS user_agent_array_days
    FROM core.user_daily_totals AS t, bounds AS b
    GROUP BY ALL
), periods AS (
    SELECT scope, scope_name, period_index,
           coalesce(a.report_days, 0) AS report_days,
           coalesce(a.agent_array_days, 0) AS agent_array_days,
           coalesce(u.user_agent_array_days, 0) AS user_agent_array_days
    FROM aggregate_days AS a
    FULL JOIN user_days AS u USING (scope, scope_name, period_index)
), aggregate_level AS (
    SELECT t.scope, t.scope_name, (b.last_day - t.day) // 28 AS period_index, t.agent_id,
           CAST(sum(t.agent_job_starts) AS BIGINT) AS agent_job_starts,
           CAST(sum(t.session_count) AS BIGINT) AS agent_sessions,
           count(DISTINCT t.day) AS active_days
    FROM core.agent_activity AS t, bounds AS b
    WHERE t.level = 'aggregate'
    GROUP BY ALL
), user_level AS (
    SELECT t.scope, t.scope_name, (b.last_day - t.day) // 28 AS period_index, t.agent_id,
           count(DISTINCT t.user_id) AS agent_users
    FROM core.agent_activity AS t, bounds AS b
    WHERE t.level = 'user'
    GROUP BY ALL
), measured AS (
    SELECT p.scope, p.scope_name, p.period_index, g.agent_id, p.report_days,
           CASE WHEN p.agent_array_days > 0 THEN coalesce(a.agent_job_starts, 0) END AS agent_job_starts,
           CASE WHEN p.agent_array_days > 0 THEN coalesce(a.agent_sessions, 0) END AS agent_sessions,
           CASE WHEN p.agent_array_days > 0 THEN coalesce(a.active_days, 0) END AS active_days,
           CASE WHEN p.user_agent_array_days > 0 THEN coalesce(u.agent_users, 0) END AS agent_users
    FROM periods AS p
    JOIN (SELECT DISTINCT scope, scope_name, agent_id FROM core.agent_activity) AS g USING (scope, scope_name)
    LEFT JOIN aggregate_level AS a USING (scope, scope_name, period_index, agent_id)
    LEFT JOIN user_level AS u USING (scope, scope_name, period_index, agent_id)
)
SELECT
    m.scope,
    m.scope_name,
    m.period_index,
    b.last_day - CAST(28 * m.period_index + 27 AS INTEGER) AS period_start,
    b.last_day - CAST(28 * m.period_index AS INTEGER) AS period_end,
    m.agent_id,
    coalesce(d.agent_name, m.agent_id) AS agent_name,
    m.report_days,
    m.active_days,
    m.agent_job_starts,
    m.agent_sessions,
    m.agent_users,
    prev.report_days AS previous_report_days,
    prev.agent_job_starts AS previous_agent_job_starts,
    prev.agent_users AS previous_agent_users,
    m.agent_job_starts - prev.agent_job_starts AS agent_job_starts_change,
    m.agent_users - prev.agent_users AS agent_users_change,
    -- Grown and shrunk compare job starts per reported day, so a partial period (fewer
    -- reported days) is not mistaken for a decline, nor the period after it for growth.
    CASE
        WHEN prev.agent_job_starts IS NULL OR m.agent_job_starts IS NULL THEN NULL
        WHEN prev.agent_job_starts = 0 AND m.agent_job_starts = 0 THEN 'unchanged'
        WHEN prev.agent_job_starts = 0 THEN 'new'
        WHEN m.agent_job_starts = 0 THEN 'gone'
        WHEN m.agent_job_starts * prev.report_days = prev.agent_job_starts * m.report_days THEN 'unchanged'
        WHEN m.agent_job_starts * prev.report_days > prev.agent_job_starts * m.report_days THEN 'grown'
        ELSE 'shrunk'
    END AS change
FROM measured AS m
CROSS JOIN bounds AS b
LEFT JOIN measured AS prev
    ON prev.scope = m.scope AND prev.scope_name = m.scope_name
   AND prev.agent_id = m.agent_id AND prev.period_index = m.period_index + 1
LEFT JOIN core.dim_agent AS d ON d.agent_id = m.agent_id
WHERE m.agent_job_starts > 0 OR m.agent_users > 0 OR prev.agent_job_starts > 0 OR prev.agent_users > 0;

COMMENT ON VIEW bi.agent_usage_periods IS 'One row per scope, 28-day period (0 = the last 28 days) and agent_id, with the change against the previous period: new, grown, shrunk, gone, unchanged (NULL = nothing to compare).';
