-- The aggregate-tier page's activity charts: the scope's own daily figures as the tier shows them.
SELECT day, user_initiated_interaction_count, daily_active_users, is_final
FROM aggregate.scope_daily
WHERE scope = $scope AND scope_name = $scope_name
ORDER BY day;
