-- core.team_window_users for windows ending on a scope's days $start_day..$end_day: the sum, over
-- a window's 28 days d, of each day's users_since[d - s + 1] (s its first day) in core.team_reach,
-- which counts each user once, on their first day in the window. Computed after core.team_reach.
INSERT INTO core.team_window_users BY NAME
WITH ends AS (
    SELECT CAST(e.day AS DATE) AS day
      FROM range(CAST($start_day AS TIMESTAMP), CAST($end_day AS TIMESTAMP) + INTERVAL 1 DAY, INTERVAL 1 DAY) AS e(day)
), reach AS (
    SELECT day, team_id, counted, users_since
      FROM core.team_reach
     WHERE scope = $scope AND scope_name = $scope_name
       AND day BETWEEN CAST($start_day AS DATE) - 27 AND $end_day
)
SELECT $scope AS scope, $scope_name AS scope_name, e.day, r.team_id,
       coalesce(sum(r.users_since[r.day - e.day + 28]) FILTER (WHERE r.counted = 'member'), 0) AS members,
       coalesce(sum(r.users_since[r.day - e.day + 28]) FILTER (WHERE r.counted = 'active'), 0) AS active_users,
       coalesce(sum(r.users_since[r.day - e.day + 28]) FILTER (WHERE r.counted = 'agent'), 0) AS agent_users
  FROM ends AS e
  JOIN reach AS r ON r.day BETWEEN e.day - 27 AND e.day
 GROUP BY ALL;
