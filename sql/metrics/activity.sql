-- The rows of the activity metrics (pipelines/metrics/activity.py), from the aggregate tier: the
-- scope's own daily figures (scope_daily) and 28-day periods (scope_periods), as the service
-- counts them; a row the tier hid under k kept with suppressed = true and every figure NULL.
CREATE OR REPLACE TEMP VIEW metrics_scope_daily AS
SELECT scope, scope_name, day, suppressed, daily_active_users, user_initiated_interaction_count,
       code_generation_activity_count, code_acceptance_activity_count
FROM aggregate.scope_daily;

CREATE OR REPLACE TEMP VIEW metrics_scope_periods AS
SELECT scope, scope_name, period_start, period_end, suppressed, monthly_active_users,
       user_initiated_interaction_count, code_generation_activity_count, code_acceptance_activity_count
FROM aggregate.scope_periods;
