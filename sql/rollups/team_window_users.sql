-- core.team_window_users for windows ending on a scope's days $start_day..$end_day.
-- Distinct users: the sum, over a window's 28 days d, of each day's users_since[d - s + 1]
-- (s its first day) in core.team_reach, which counts each user once, on their first day in the
-- window. Sums: the team's days of the window in core.team_report_days, and the scope's final
-- days with team data (compared_days, the same on each of its teams' rows). Computed after
-- both.
INSERT INTO core.team_window_users BY NAME
WITH ends AS (
    SELECT CAST(e.day AS DATE) AS day
      FROM range(CAST($start_day AS TIMESTAMP), CAST($end_day AS TIMESTAMP) + INTERVAL 1 DAY, INTERVAL 1 DAY) AS e(day)
), reach AS (
    SELECT e.day, r.team_id,
           coalesce(sum(r.users_since[r.day - e.day + 28]) FILTER (WHERE r.counted = 'member'), 0) AS members,
           coalesce(sum(r.users_since[r.day - e.day + 28]) FILTER (WHERE r.counted = 'active'), 0) AS active_users,
           coalesce(sum(r.users_since[r.day - e.day + 28]) FILTER (WHERE r.counted = 'third_party_agent'), 0)
               AS third_party_agent_users
      FROM ends AS e
      JOIN core.team_reach AS r ON r.day BETWEEN e.day - 27 AND e.day
     WHERE r.scope = $scope AND r.scope_name = $scope_name
       AND r.day BETWEEN CAST($start_day AS DATE) - 27 AND $end_day
     GROUP BY ALL
), team_days AS (
    SELECT e.day AS end_day, t.day AS team_day, t.* EXCLUDE (day)
      FROM ends AS e
      JOIN core.team_report_days AS t ON t.day BETWEEN e.day - 27 AND e.day
     WHERE t.scope = $scope AND t.scope_name = $scope_name
       AND t.day BETWEEN CAST($start_day AS DATE) - 27 AND $end_day
), sums AS (
    SELECT end_day AS day, team_id,
           count(*) AS listed_days,
           CAST(sum(user_initiated_interaction_count) AS BIGINT) AS user_initiated_interaction_count,
           CAST(sum(code_generation_activity_count) AS BIGINT) AS code_generation_activity_count,
           CAST(sum(code_acceptance_activity_count) AS BIGINT) AS code_acceptance_activity_count,
           sum(ai_credits_used) AS ai_credits_used,
           -- Each final day's active users of the team: the series the change rule weighs.
           CAST(sum(active_users) FILTER (WHERE membership_final) AS BIGINT) AS active_user_days,
           CAST(sum(active_users * active_users) FILTER (WHERE membership_final) AS BIGINT) AS active_user_days_squares
      FROM team_days
     GROUP BY ALL
), compared AS (
    SELECT end_day AS day, count(DISTINCT team_day) FILTER (WHERE membership_final) AS compared_days
      FROM team_days
     GROUP BY ALL
)
SELECT $scope AS scope, $scope_name AS scope_name, day, team_id,
       coalesce(r.members, 0) AS members,
       coalesce(r.active_users, 0) AS active_users,
       coalesce(r.third_party_agent_users, 0) AS third_party_agent_users,
       coalesce(s.listed_days, 0) AS listed_days,
       s.user_initiated_interaction_count, s.code_generation_activity_count, s.code_acceptance_activity_count,
       s.ai_credits_used, s.active_user_days, s.active_user_days_squares,
       coalesce(c.compared_days, 0) AS compared_days
  FROM reach AS r
  FULL JOIN sums AS s USING (day, team_id)
  LEFT JOIN compared AS c USING (day);
