-- The page's teams section: each team of one scope in the last 28 days against the period
-- before, busiest first (extension: teams). The change is called on active users a day, so the
-- page shows both periods' active users a day beside it; landed_days is how many of the 28 days
-- brought the scope's team report (the most any of its teams was listed).
SELECT team_id, team_slug, period_start, period_end, members, active_users, third_party_agent_users,
       user_initiated_interaction_count, ai_credits_used,
       active_users_per_day, previous_active_users_per_day, change,
       active_users_per_day_change_low, active_users_per_day_change_high,
       compared_days, previous_compared_days, bi.min_compared_days() AS min_compared_days,
       max(listed_days) OVER () AS landed_days
FROM bi.team_usage_periods
WHERE scope = $scope AND scope_name = $scope_name AND period_index = 0
ORDER BY active_users DESC, team_slug;
