-- aggregate.team_daily: bi.team_usage_daily without any team-day about fewer than $k people.
-- A team whose reported users that day are fewer than $k keeps its row, suppressed = true,
-- every figure NULL. Rows do not add up to the organization (a user on two teams counts in
-- both), so no total is shown from which a suppressed row could be worked out.
CREATE OR REPLACE TEMP TABLE aggregate_team_daily AS
SELECT
    scope,
    scope_name,
    day,
    team_id,
    team_slug,
    reported_users < $k AS suppressed,
    CASE WHEN reported_users >= $k THEN members END AS members,
    CASE WHEN reported_users >= $k THEN reported_users END AS reported_users,
    CASE WHEN reported_users >= $k THEN active_users END AS active_users,
    CASE WHEN reported_users >= $k THEN agent_users END AS agent_users,
    CASE WHEN reported_users >= $k THEN user_initiated_interaction_count END AS user_initiated_interaction_count,
    CASE WHEN reported_users >= $k THEN code_generation_activity_count END AS code_generation_activity_count,
    CASE WHEN reported_users >= $k THEN code_acceptance_activity_count END AS code_acceptance_activity_count,
    CASE WHEN reported_users >= $k THEN loc_suggested_to_add_sum END AS loc_suggested_to_add_sum,
    CASE WHEN reported_users >= $k THEN loc_added_sum END AS loc_added_sum,
    CASE WHEN reported_users >= $k THEN loc_deleted_sum END AS loc_deleted_sum,
    is_final
FROM bi.team_usage_daily
ORDER BY scope, scope_name, day, team_id
