-- aggregate.scope_daily: one row per scope (organization or enterprise) and day, the service's
-- own figures (core.daily_totals), where _scope_day_status.sql shows the day: its active users number
-- $k or more, and neither another day of the same date minus it nor an enterprise minus its
-- organizations leaves fewer than $k people. Otherwise the row stays, suppressed = true, every
-- figure NULL (never a zero).
CREATE OR REPLACE TEMP TABLE aggregate_scope_daily AS
SELECT
    t.scope,
    t.scope_name,
    t.day,
    NOT s.shown AS suppressed,
    CASE WHEN s.shown THEN t.daily_active_users END AS daily_active_users,
    CASE WHEN s.shown THEN t.weekly_active_users END AS weekly_active_users,
    CASE WHEN s.shown THEN t.monthly_active_users END AS monthly_active_users,
    CASE WHEN s.shown THEN t.user_initiated_interaction_count END AS user_initiated_interaction_count,
    CASE WHEN s.shown THEN t.code_generation_activity_count END AS code_generation_activity_count,
    CASE WHEN s.shown THEN t.code_acceptance_activity_count END AS code_acceptance_activity_count,
    CASE WHEN s.shown THEN t.loc_suggested_to_add_sum END AS loc_suggested_to_add_sum,
    CASE WHEN s.shown THEN t.loc_added_sum END AS loc_added_sum,
    CASE WHEN s.shown THEN t.loc_deleted_sum END AS loc_deleted_sum,
    t.is_final
FROM core.daily_totals AS t
JOIN aggregate_scope_day_status AS s USING (scope, scope_name, day)
ORDER BY t.scope, t.scope_name, t.day
