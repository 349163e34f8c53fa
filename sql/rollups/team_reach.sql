-- core.team_reach for a scope's days $start_day..$end_day: each user counted on a team that day
-- (listed, active on any surface, with a third-party agent job) with the days since the team last counted
-- them so, as users_since counts. Days from 27 before $start_day are read for those gaps: a
-- longer gap counts as 28.
INSERT INTO core.team_reach BY NAME
WITH agent_days AS (
    SELECT day, user_id, sum(agent_job_starts) AS job_starts
      FROM core.agent_activity
     WHERE level = 'user' AND scope = $scope AND scope_name = $scope_name
       AND day BETWEEN CAST($start_day AS DATE) - 27 AND $end_day
     GROUP BY ALL
), member_days AS (
    SELECT DISTINCT t.day, t.team_id, t.user_id,
           u.user_id IS NOT NULL AND core.active_on_any_surface(u, a.job_starts) AS active,
           u.user_id IS NOT NULL AND coalesce(a.job_starts, 0) > 0 AS third_party_agent
      FROM core.user_team_days AS t
      LEFT JOIN core.user_daily_totals AS u
        ON u.scope = t.scope AND u.scope_name = t.scope_name AND u.day = t.day AND u.user_id = t.user_id
       AND u.report_kind = '1-day'
      LEFT JOIN agent_days AS a ON a.day = t.day AND a.user_id = t.user_id
     WHERE t.scope = $scope AND t.scope_name = $scope_name
       AND t.day BETWEEN CAST($start_day AS DATE) - 27 AND $end_day
), counted AS (
    SELECT day, team_id, user_id, 'member' AS counted FROM member_days
    UNION ALL
    SELECT day, team_id, user_id, 'active' FROM member_days WHERE active
    UNION ALL
    SELECT day, team_id, user_id, 'third_party_agent' FROM member_days WHERE third_party_agent
), seen AS (
    -- Of the days before $start_day only each user's last one on the team counts for a gap: one
    -- row a user, so the window below sorts the refreshed days, not four weeks of history.
    SELECT day, team_id, counted, user_id, TRUE AS refreshed FROM counted WHERE day >= $start_day
    UNION ALL
    SELECT max(day), team_id, counted, user_id, FALSE FROM counted WHERE day < $start_day
     GROUP BY team_id, counted, user_id
), gaps AS (
    SELECT day, team_id, counted, refreshed,
           least(coalesce(day - lag(day) OVER (PARTITION BY team_id, counted, user_id ORDER BY day), 28), 28)
               AS gap_days
      FROM seen
), histogram AS (
    SELECT day, team_id, counted, gap_days, count(*) AS users FROM gaps WHERE refreshed GROUP BY ALL
), since AS (
    SELECT h.day, h.team_id, h.counted, k.k, coalesce(sum(h.users) FILTER (WHERE h.gap_days >= k.k), 0) AS users
      FROM histogram AS h, range(1, 29) AS k(k)
     GROUP BY ALL
)
SELECT $scope AS scope, $scope_name AS scope_name, day, team_id, counted,
       list(CAST(users AS BIGINT) ORDER BY k) AS users_since
  FROM since
 GROUP BY day, team_id, counted;
