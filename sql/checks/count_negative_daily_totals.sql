-- No count below zero in core.daily_totals.
-- Over a slice: one report's scope, level and days inside its transaction, or (a NULL scope
-- and the widest days) the whole history in the audit.
SELECT count(*) AS failures, string_agg(DISTINCT scope_name || ' ' || day, ', ') AS detail
FROM core.daily_totals
WHERE day BETWEEN $start_day AND $end_day AND ($scope IS NULL OR (scope = $scope AND scope_name = $scope_name))
  AND least(user_initiated_interaction_count, code_generation_activity_count,
            code_acceptance_activity_count, loc_suggested_to_add_sum, loc_suggested_to_delete_sum,
            loc_added_sum, loc_deleted_sum, daily_active_users, weekly_active_users,
            monthly_active_users, monthly_active_chat_users, monthly_active_agent_users) < 0;
