-- The run summary's teams (extension): per scope, each team of the last 28 days with its latest
-- slug, members and active users, busiest first.
SELECT scope, scope_name, team_slug, members, active_users, change
FROM bi.team_usage_periods
WHERE period_index = 0 AND members > 0
ORDER BY scope, scope_name, active_users DESC, team_slug;
