-- aggregate.scope_periods: one row per scope (organization or enterprise) and 28-day period,
-- counted back from the newest reported day as in the full tier's period views (period_index 0
-- = the last 28 days). The service's own figures (core.daily_totals): its daily figures summed
-- over the period's reported days, and monthly_active_users, its 28-day active users, on the
-- period's newest reported day. Shown where _scope_period_status.sql shows it (at least $k people
-- behind its sums, its hidden days about $k people or more, no shown period minus it and no
-- enterprise minus its organizations leaving fewer); otherwise the row stays, suppressed = true,
-- every figure NULL.
CREATE OR REPLACE TEMP TABLE aggregate_scope_periods AS
WITH bounds AS (
    SELECT max(day) AS last_day
    FROM (SELECT day FROM core.daily_totals UNION ALL SELECT day FROM core.user_report_days)
), periods AS (
    SELECT t.scope, t.scope_name, (b.last_day - t.day) // 28 AS period_index, any_value(b.last_day) AS last_day,
           count(*) AS report_days,
           arg_max(t.monthly_active_users, t.day) AS monthly_active_users,
           CAST(sum(t.user_initiated_interaction_count) AS BIGINT) AS user_initiated_interaction_count,
           CAST(sum(t.code_generation_activity_count) AS BIGINT) AS code_generation_activity_count,
           CAST(sum(t.code_acceptance_activity_count) AS BIGINT) AS code_acceptance_activity_count,
           CAST(sum(t.loc_added_sum) AS BIGINT) AS loc_added_sum,
           CAST(sum(t.loc_deleted_sum) AS BIGINT) AS loc_deleted_sum,
           bool_and(coalesce(t.is_final, TRUE)) AS is_final
    FROM core.daily_totals AS t, bounds AS b
    GROUP BY ALL
)
SELECT
    p.scope,
    p.scope_name,
    p.period_index,
    p.last_day - CAST(28 * p.period_index + 27 AS INTEGER) AS period_start,
    p.last_day - CAST(28 * p.period_index AS INTEGER) AS period_end,
    NOT s.shown AS suppressed,
    CASE WHEN s.shown THEN p.report_days END AS report_days,
    CASE WHEN s.shown THEN p.monthly_active_users END AS monthly_active_users,
    CASE WHEN s.shown THEN p.user_initiated_interaction_count END AS user_initiated_interaction_count,
    CASE WHEN s.shown THEN p.code_generation_activity_count END AS code_generation_activity_count,
    CASE WHEN s.shown THEN p.code_acceptance_activity_count END AS code_acceptance_activity_count,
    CASE WHEN s.shown THEN p.loc_added_sum END AS loc_added_sum,
    CASE WHEN s.shown THEN p.loc_deleted_sum END AS loc_deleted_sum,
    p.is_final
FROM periods AS p
JOIN aggregate_scope_period_status AS s USING (scope, scope_name, period_index)
ORDER BY p.scope, p.scope_name, p.period_index
