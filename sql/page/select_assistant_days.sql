-- Top-level assistant activity of one scope, by day.
SELECT day, user_initiated_interaction_count, daily_active_users, acceptance_rate
FROM bi.assistant_activity_daily
WHERE scope = $scope AND scope_name = $scope_name
ORDER BY day;
