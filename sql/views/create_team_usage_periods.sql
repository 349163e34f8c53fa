-- bi.team_usage_periods (extension: docs/extensions.md)
-- Grain: one row per scope, scope_name, 28-day period and team_id listed in that period or in
-- the one before. Periods count back from the newest reported day as in bi.agent_usage_periods
-- (period_index 0 = the last 28 days), so the two line up.
-- Users are counted DISTINCT over the period (never summed from days), each day through that
-- day's membership; active on any documented surface as in bi.team_usage_daily, and
-- third_party_agent_users (agent_users before 2026-11) with a third-party agent app job. A
-- user who moved team mid-period counts for both teams, with the activity
-- of the days on each. listed_days: days the team was in the user-teams report.
-- compared_days: the period's final days with team data (a provisional day, fetched before it was
-- final, is still filling in). active_users_per_day: the team's mean active users over them.
-- change compares active_users_per_day with the previous period by the one change rule
-- (_change_rule.sql): new, grown, shrunk, gone, or steady within the day-to-day noise; NULL
-- (comparable = false) unless both periods have bi.min_compared_days() compared days.
CREATE OR REPLACE VIEW bi.team_usage_periods AS
WITH bounds AS (
    SELECT max(day) AS last_day
    FROM (SELECT day FROM core.daily_totals UNION ALL SELECT day FROM core.user_report_days)
), windows AS (
    -- The rollup core.team_window_users: one row a team and period, the 28 days ending on the
    -- period's last day, with its distinct users, sums and the scope's compared days.
    SELECT w.*, (b.last_day - w.day) // 28 AS period_index
    FROM core.team_window_users AS w, bounds AS b
    WHERE w.day <= b.last_day AND (b.last_day - w.day) % 28 = 0
), measured AS (
    SELECT scope, scope_name, period_index, team_id, listed_days, members, active_users, third_party_agent_users,
           user_initiated_interaction_count, code_generation_activity_count, code_acceptance_activity_count,
           ai_credits_used, active_user_days, active_user_days_squares
    FROM windows
    WHERE listed_days > 0
), periods AS (
    SELECT scope, scope_name, period_index, max(compared_days) AS compared_days
    FROM windows
    WHERE listed_days > 0
    GROUP BY ALL
), rows AS (
    SELECT scope, scope_name, period_index, team_id FROM measured
    UNION
    -- A team listed in the previous period and not in this one: "gone".
    SELECT p.scope, p.scope_name, p.period_index - 1, p.team_id FROM measured AS p WHERE p.period_index > 0
)
SELECT
    r.scope,
    r.scope_name,
    r.period_index,
    b.last_day - CAST(28 * r.period_index + 27 AS INTEGER) AS period_start,
    b.last_day - CAST(28 * r.period_index AS INTEGER) AS period_end,
    r.team_id,
    coalesce(d.slug, CAST(r.team_id AS VARCHAR)) AS team_slug,
    coalesce(m.listed_days, 0) AS listed_days,
    coalesce(m.members, 0) AS members,
    coalesce(m.active_users, 0) AS active_users,
    coalesce(m.third_party_agent_users, 0) AS third_party_agent_users,
    coalesce(m.user_initiated_interaction_count, 0) AS user_initiated_interaction_count,
    coalesce(m.code_generation_activity_count, 0) AS code_generation_activity_count,
    coalesce(m.code_acceptance_activity_count, 0) AS code_acceptance_activity_count,
    coalesce(m.ai_credits_used, 0) AS ai_credits_used,
    CASE WHEN pp.period_index IS NOT NULL THEN coalesce(prev.active_users, 0) END AS previous_active_users,
    CASE WHEN pp.period_index IS NOT NULL THEN coalesce(m.active_users, 0) - coalesce(prev.active_users, 0) END
        AS active_users_change,
    tp.compared_days,
    pp.compared_days AS previous_compared_days,
    CASE WHEN tp.compared_days > 0 THEN coalesce(m.active_user_days, 0) / tp.compared_days END
        AS active_users_per_day,
    CASE WHEN pp.compared_days > 0 THEN coalesce(prev.active_user_days, 0) / pp.compared_days END
        AS previous_active_users_per_day,
    coalesce(tp.compared_days >= bi.min_compared_days() AND pp.compared_days >= bi.min_compared_days(), FALSE)
        AS comparable,
    bi.change_low(coalesce(m.active_user_days, 0), coalesce(m.active_user_days_squares, 0), tp.compared_days,
                  coalesce(prev.active_user_days, 0), coalesce(prev.active_user_days_squares, 0), pp.compared_days)
        AS active_users_per_day_change_low,
    bi.change_high(coalesce(m.active_user_days, 0), coalesce(m.active_user_days_squares, 0), tp.compared_days,
                   coalesce(prev.active_user_days, 0), coalesce(prev.active_user_days_squares, 0), pp.compared_days)
        AS active_users_per_day_change_high,
    bi.change_call(coalesce(m.active_user_days, 0), coalesce(m.active_user_days_squares, 0), tp.compared_days,
                   coalesce(prev.active_user_days, 0), coalesce(prev.active_user_days_squares, 0), pp.compared_days)
        AS change
FROM rows AS r
CROSS JOIN bounds AS b
LEFT JOIN measured AS m USING (scope, scope_name, period_index, team_id)
LEFT JOIN measured AS prev
    ON prev.scope = r.scope AND prev.scope_name = r.scope_name AND prev.team_id = r.team_id
   AND prev.period_index = r.period_index + 1
LEFT JOIN periods AS tp
    ON tp.scope = r.scope AND tp.scope_name = r.scope_name AND tp.period_index = r.period_index
LEFT JOIN periods AS pp
    ON pp.scope = r.scope AND pp.scope_name = r.scope_name AND pp.period_index = r.period_index + 1
LEFT JOIN core.dim_team AS d ON d.scope = r.scope AND d.scope_name = r.scope_name AND d.team_id = r.team_id;

COMMENT ON VIEW bi.team_usage_periods IS 'Extension. One row per scope, 28-day period (0 = the last 28 days) and team: users counted distinct over the period through each day''s membership, with the change in active users a day against the previous period, called only beyond the day-to-day noise (NULL unless both periods have 14 final days with team data).';
