-- The aggregate-tier page's teams: each team of the scope over the last 28 days as the tier shows
-- it, busiest first, the hidden ones (about fewer than k people) last.
SELECT team_slug, suppressed, members, active_users, active_users_per_day, period_start, period_end
FROM aggregate.team_periods
WHERE scope = $scope AND scope_name = $scope_name AND period_index = 0
ORDER BY suppressed, active_users DESC, team_slug;
