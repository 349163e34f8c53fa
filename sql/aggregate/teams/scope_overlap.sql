-- How many of each team-day's active members (aggregate_active_members, of the days worked out
-- again) the service's own count of a scope-day of the same date counts (aggregate_active_users
-- counted: their lines are of a class its daily_active_users counts): the team-days and scopes
-- that share $k or more such people, fewer never being enough for one to hold the other's count
-- shown. _team_day_status.sql compares it with the scope's count as shown (daily_active_users):
-- a team holding all of a scope's counted users, or lying within them, with 1..$k-1 more or fewer.
SELECT m.scope, m.scope_name, m.day, m.team_id, u.scope AS o_scope, u.scope_name AS o_scope_name,
       count(*) AS counted_members
FROM aggregate_active_members AS m
JOIN aggregate_active_users AS u ON u.day = m.day AND u.user_id = m.user_id AND u.counted
GROUP BY ALL
HAVING count(*) >= $k
ORDER BY ALL
