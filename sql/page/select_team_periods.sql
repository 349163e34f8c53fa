-- The page's teams section: each team of one scope in the last 28 days against the period
-- before, busiest first (extension: teams).
SELECT team_id, team_slug, period_start, period_end, members, active_users, previous_active_users, agent_users,
       user_initiated_interaction_count, ai_credits_used, change, compared_days, previous_compared_days,
       bi.min_compared_days() AS min_compared_days
FROM bi.team_usage_periods
WHERE scope = $scope AND scope_name = $scope_name AND period_index = 0
ORDER BY active_users DESC, team_slug;
