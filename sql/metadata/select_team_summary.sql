-- The run summary's teams (extension): per scope, each team of the last 28 days with its latest
-- slug, members and active users, busiest first; the active users a day the change compares
-- (bi.team_usage_periods); landed_days: the days of the 28 the scope's teams
-- were listed on (one after a first one-day run: the figures cover that day only).
SELECT scope, scope_name, team_slug, members, active_users, change,
       active_users_per_day, previous_active_users_per_day,
       max(listed_days) OVER (PARTITION BY scope, scope_name) AS landed_days, period_start
FROM bi.team_usage_periods
WHERE period_index = 0 AND members > 0
ORDER BY scope, scope_name, active_users DESC, team_slug;
