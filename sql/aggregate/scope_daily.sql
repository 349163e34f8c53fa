-- aggregate.scope_daily: one row per scope (organization or enterprise) and day, the service's
-- own figures (core.daily_totals). A day with fewer than $k active users is suppressed: the row
-- stays, suppressed = true, every figure NULL (never a zero).
CREATE OR REPLACE TEMP TABLE aggregate_scope_daily AS
SELECT
    scope,
    scope_name,
    day,
    daily_active_users < $k OR daily_active_users IS NULL AS suppressed,
    CASE WHEN daily_active_users >= $k THEN daily_active_users END AS daily_active_users,
    CASE WHEN daily_active_users >= $k THEN weekly_active_users END AS weekly_active_users,
    CASE WHEN daily_active_users >= $k THEN monthly_active_users END AS monthly_active_users,
    CASE WHEN daily_active_users >= $k THEN user_initiated_interaction_count END AS user_initiated_interaction_count,
    CASE WHEN daily_active_users >= $k THEN code_generation_activity_count END AS code_generation_activity_count,
    CASE WHEN daily_active_users >= $k THEN code_acceptance_activity_count END AS code_acceptance_activity_count,
    CASE WHEN daily_active_users >= $k THEN loc_suggested_to_add_sum END AS loc_suggested_to_add_sum,
    CASE WHEN daily_active_users >= $k THEN loc_added_sum END AS loc_added_sum,
    CASE WHEN daily_active_users >= $k THEN loc_deleted_sum END AS loc_deleted_sum,
    is_final
FROM core.daily_totals
ORDER BY scope, scope_name, day
