-- bi.assistant_activity_daily
-- Grain: one row per scope, scope_name and day of the aggregate report.
-- The assistant's own top-level measures: user_initiated_interaction_count is the top-level
-- count (explicit prompts), NOT agent job starts; this view deliberately has no agent column,
-- and the two must never be added up (docs/service-contract.md §2). acceptance_rate = acceptances / generations
-- (NULL when there were no generations). is_final: the day was final (more than three full UTC
-- days old) when its report was fetched; a provisional day is still filling in. Every column is typed under one name whatever the
-- dialect's wire name (the public service's `*_by_copilot` lands in `*_by_assistant`).
CREATE OR REPLACE VIEW bi.assistant_activity_daily AS
SELECT
    scope,
    scope_name,
    day,
    is_final,
    user_initiated_interaction_count,
    code_generation_activity_count,
    code_acceptance_activity_count,
    CASE WHEN code_generation_activity_count > 0
         THEN code_acceptance_activity_count / code_generation_activity_count END AS acceptance_rate,
    daily_active_users,
    weekly_active_users,
    monthly_active_users,
    monthly_active_chat_users,
    monthly_active_agent_users,
    daily_active_cli_users,
    daily_active_assistant_code_review_users,
    daily_passive_assistant_code_review_users,
    monthly_active_assistant_code_review_users,
    monthly_passive_assistant_code_review_users,
    loc_suggested_to_add_sum,
    loc_added_sum,
    loc_deleted_sum,
    pull_requests_total_created,
    pull_requests_total_merged,
    pull_requests_total_created_by_assistant,
    pull_requests_total_reviewed_by_assistant,
    pull_requests_total_merged_created_by_assistant,
    pull_requests_median_minutes_to_merge_assistant_authored,
    pull_requests_total_assistant_suggestions,
    pull_requests_total_assistant_applied_suggestions
FROM core.daily_totals;

COMMENT ON VIEW bi.assistant_activity_daily IS 'One row per scope and day: top-level assistant activity (interactions, active users, acceptance rate). Not agent job starts: never add the two.';
