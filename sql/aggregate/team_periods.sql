-- aggregate.team_periods: bi.team_usage_periods (distinct users from the reach rollup
-- core.team_reach, sums from core.team_report_days) without any team-period about fewer than
-- $k people. Its figures are its active users' (an inactive member adds nothing to a sum), so
-- a team with fewer than $k active users in the period keeps its row, suppressed = true, every
-- figure NULL. The change against the previous period is not shown, as in agent_periods.
CREATE OR REPLACE TEMP TABLE aggregate_team_periods AS
SELECT
    scope,
    scope_name,
    period_index,
    period_start,
    period_end,
    team_id,
    team_slug,
    active_users < $k AS suppressed,
    CASE WHEN active_users >= $k THEN listed_days END AS listed_days,
    CASE WHEN active_users >= $k THEN members END AS members,
    CASE WHEN active_users >= $k THEN active_users END AS active_users,
    CASE WHEN active_users >= $k THEN agent_users END AS agent_users,
    CASE WHEN active_users >= $k THEN user_initiated_interaction_count END AS user_initiated_interaction_count,
    CASE WHEN active_users >= $k THEN code_generation_activity_count END AS code_generation_activity_count,
    CASE WHEN active_users >= $k THEN code_acceptance_activity_count END AS code_acceptance_activity_count,
    CASE WHEN active_users >= $k THEN ai_credits_used END AS ai_credits_used,
    CASE WHEN active_users >= $k THEN active_users_per_day END AS active_users_per_day
FROM bi.team_usage_periods
ORDER BY scope, scope_name, period_index, team_id
