-- bi.agent_usage_periods
-- Grain: one row per scope, scope_name, 28-day period and agent_id that had activity in that
-- period or in the one before. Periods are counted back from the newest reported day, so
-- period_index 0 is "the last 28 days", 1 the 28 days before, and so on.
-- Totals: agent_job_starts and agent_sessions sum the aggregate report's days; agent_users counts
-- distinct users with the agent in the period's user-level records. A measure is NULL when no
-- report of its level in the period carried the agent array (a gap, not a zero).
-- Day counts: report_days (aggregate reports), agent_data_days (of them, reports carrying the
-- agent array), provisional_days (reports fetched before the day was final: three full UTC days
-- after it, still filling in), compared_days (final days carrying the agent array).
-- Rates, the basis of every comparison: job_starts_per_day = job starts on compared days /
-- compared_days, users_per_day = mean daily users of the agent over the final user-level days
-- carrying the array. A day without the array is a gap, not a zero, and a provisional day is
-- still filling in: neither may dilute a rate, or a period of fewer days look like a change.
-- change compares job_starts_per_day with the previous period by the one change rule
-- (_change_rule.sql): new, grown, shrunk, gone, or steady when the difference is within the
-- day-to-day noise; NULL (comparable = false) unless both periods have bi.min_compared_days()
-- compared days. job_starts_per_day_change is the share (0.09 = 9% more per compared day),
-- job_starts_per_day_change_low and _high its 95% interval.
CREATE OR REPLACE VIEW bi.agent_usage_periods AS
WITH bounds AS (
    SELECT max(day) AS last_day
    FROM (SELECT day FROM core.daily_totals UNION ALL SELECT day FROM core.user_report_days)
), aggregate_day AS (
    -- A day's aggregate report: did it carry the array, was it final when fetched (unknown: final).
    SELECT t.scope, t.scope_name, t.day, (b.last_day - t.day) // 28 AS period_index,
           bool_or(t.agent_breakdown_present) AS carried, bool_and(coalesce(t.is_final, TRUE)) AS final
    FROM core.daily_totals AS t, bounds AS b
    GROUP BY ALL
), user_day AS (
    SELECT t.scope, t.scope_name, t.day, (b.last_day - t.day) // 28 AS period_index,
           t.agent_breakdown_present AS carried, coalesce(t.is_final, TRUE) AS final
    FROM core.user_report_days AS t, bounds AS b
), aggregate_days AS (
    SELECT scope, scope_name, period_index,
           count(*) AS report_days,
           count(*) FILTER (WHERE carried) AS agent_data_days,
           count(*) FILTER (WHERE NOT final) AS provisional_days,
           count(*) FILTER (WHERE carried AND final) AS compared_days
    FROM aggregate_day
    GROUP BY ALL
), user_days AS (
    SELECT scope, scope_name, period_index,
           count(*) FILTER (WHERE carried) AS user_agent_array_days,
           count(*) FILTER (WHERE carried AND final) AS user_compared_days
    FROM user_day
    GROUP BY ALL
), periods AS (
    SELECT scope, scope_name, period_index,
           coalesce(a.report_days, 0) AS report_days,
           coalesce(a.agent_data_days, 0) AS agent_data_days,
           coalesce(a.provisional_days, 0) AS provisional_days,
           coalesce(a.compared_days, 0) AS compared_days,
           coalesce(u.user_agent_array_days, 0) AS user_agent_array_days,
           coalesce(u.user_compared_days, 0) AS user_compared_days
    FROM aggregate_days AS a
    FULL JOIN user_days AS u USING (scope, scope_name, period_index)
), aggregate_daily AS (
    SELECT scope, scope_name, day, agent_id,
           sum(agent_job_starts) AS job_starts, sum(session_count) AS sessions
    FROM core.agent_days
    WHERE level = 'aggregate'
    GROUP BY ALL
), aggregate_level AS (
    SELECT t.scope, t.scope_name, d.period_index, t.agent_id,
           CAST(sum(t.job_starts) AS BIGINT) AS agent_job_starts,
           CAST(sum(t.job_starts) FILTER (WHERE d.final) AS BIGINT) AS compared_job_starts,
           -- The day-to-day spread the change rule weighs a difference against.
           sum(t.job_starts * t.job_starts) FILTER (WHERE d.final) AS compared_job_starts_squares,
           CAST(sum(t.sessions) AS BIGINT) AS agent_sessions,
           count(DISTINCT t.day) AS active_days
    FROM aggregate_daily AS t
    JOIN aggregate_day AS d USING (scope, scope_name, day)
    GROUP BY ALL
), user_daily AS (
    SELECT scope, scope_name, day, agent_id, sum(agent_users) AS users
    FROM core.agent_days
    WHERE level = 'user'
    GROUP BY ALL
), user_level AS (
    -- Distinct users over the period, from core.agent_reach: each user once, on their first
    -- day of the period (the rows whose gap reaches back before the period's first day).
    SELECT r.scope, r.scope_name, d.period_index, r.agent_id,
           CAST(sum(r.users) FILTER (WHERE r.gap_days > r.day - (b.last_day - CAST(28 * d.period_index + 27 AS INTEGER)))
                AS BIGINT) AS agent_users
    FROM core.agent_reach AS r
    JOIN user_day AS d USING (scope, scope_name, day)
    CROSS JOIN bounds AS b
    GROUP BY ALL
), user_rates AS (
    SELECT u.scope, u.scope_name, d.period_index, u.agent_id, sum(u.users) AS compared_user_days
    FROM user_daily AS u
    JOIN user_day AS d USING (scope, scope_name, day)
    WHERE d.carried AND d.final
    GROUP BY ALL
), measured AS (
    SELECT p.scope, p.scope_name, p.period_index, g.agent_id, p.report_days, p.agent_data_days,
           p.provisional_days, p.compared_days,
           CASE WHEN p.agent_data_days > 0 THEN coalesce(a.agent_job_starts, 0) END AS agent_job_starts,
           CASE WHEN p.agent_data_days > 0 THEN coalesce(a.agent_sessions, 0) END AS agent_sessions,
           CASE WHEN p.agent_data_days > 0 THEN coalesce(a.active_days, 0) END AS active_days,
           CASE WHEN p.user_agent_array_days > 0 THEN coalesce(u.agent_users, 0) END AS agent_users,
           CASE WHEN p.agent_data_days > 0 THEN coalesce(a.compared_job_starts, 0) END AS compared_job_starts,
           CASE WHEN p.agent_data_days > 0 THEN coalesce(a.compared_job_starts_squares, 0) END
               AS compared_job_starts_squares,
           CASE WHEN p.compared_days > 0
                THEN coalesce(a.compared_job_starts, 0) / p.compared_days END AS job_starts_per_day,
           CASE WHEN p.user_compared_days > 0
                THEN coalesce(r.compared_user_days, 0) / p.user_compared_days END AS users_per_day
    FROM periods AS p
    JOIN (SELECT DISTINCT scope, scope_name, agent_id FROM core.agent_days) AS g USING (scope, scope_name)
    LEFT JOIN aggregate_level AS a USING (scope, scope_name, period_index, agent_id)
    LEFT JOIN user_level AS u USING (scope, scope_name, period_index, agent_id)
    LEFT JOIN user_rates AS r USING (scope, scope_name, period_index, agent_id)
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
    m.agent_data_days,
    m.provisional_days,
    m.compared_days,
    m.active_days,
    m.agent_job_starts,
    m.agent_sessions,
    m.agent_users,
    m.job_starts_per_day,
    m.users_per_day,
    prev.report_days AS previous_report_days,
    prev.compared_days AS previous_compared_days,
    prev.agent_job_starts AS previous_agent_job_starts,
    prev.agent_users AS previous_agent_users,
    prev.job_starts_per_day AS previous_job_starts_per_day,
    prev.users_per_day AS previous_users_per_day,
    m.agent_job_starts - prev.agent_job_starts AS agent_job_starts_change,
    m.agent_users - prev.agent_users AS agent_users_change,
    coalesce(m.compared_days >= bi.min_compared_days() AND prev.compared_days >= bi.min_compared_days(), FALSE)
        AS comparable,
    CASE WHEN m.compared_days >= bi.min_compared_days() AND prev.compared_days >= bi.min_compared_days()
          AND prev.job_starts_per_day > 0
         THEN m.job_starts_per_day / prev.job_starts_per_day - 1 END AS job_starts_per_day_change,
    bi.change_low(m.compared_job_starts, m.compared_job_starts_squares, m.compared_days,
                  prev.compared_job_starts, prev.compared_job_starts_squares, prev.compared_days)
        AS job_starts_per_day_change_low,
    bi.change_high(m.compared_job_starts, m.compared_job_starts_squares, m.compared_days,
                   prev.compared_job_starts, prev.compared_job_starts_squares, prev.compared_days)
        AS job_starts_per_day_change_high,
    CASE
        -- Job starts only on provisional days: not gone, just not comparable yet.
        WHEN m.job_starts_per_day = 0 AND m.agent_job_starts > 0 THEN NULL
        ELSE bi.change_call(m.compared_job_starts, m.compared_job_starts_squares, m.compared_days,
                            prev.compared_job_starts, prev.compared_job_starts_squares, prev.compared_days)
    END AS change
FROM measured AS m
CROSS JOIN bounds AS b
LEFT JOIN measured AS prev
    ON prev.scope = m.scope AND prev.scope_name = m.scope_name
   AND prev.agent_id = m.agent_id AND prev.period_index = m.period_index + 1
LEFT JOIN core.dim_agent AS d ON d.agent_id = m.agent_id
WHERE m.agent_job_starts > 0 OR m.agent_users > 0 OR prev.agent_job_starts > 0 OR prev.agent_users > 0;

COMMENT ON VIEW bi.agent_usage_periods IS 'One row per scope, 28-day period (0 = the last 28 days) and agent_id: totals, day counts (with agent data, provisional, compared), per-day rates, and the change in job starts per compared day against the previous period, called only beyond the day-to-day noise (95% interval in job_starts_per_day_change_low/_high): new, grown, shrunk, gone, steady (NULL = fewer than 14 final days with agent data in either period).';
