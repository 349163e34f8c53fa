-- core.agent_reach for a scope's days $start_day..$end_day: each user-level agent entry with
-- the days since that user's previous entry of the agent, as users_since counts. Entries from
-- 27 days before $start_day are read for those gaps, none before: a longer gap counts as 28.
INSERT INTO core.agent_reach BY NAME
WITH entries AS (
    SELECT DISTINCT day, agent_id, user_id
      FROM core.agent_activity
     WHERE level = 'user' AND scope = $scope AND scope_name = $scope_name
       AND day BETWEEN CAST($start_day AS DATE) - 27 AND $end_day
), gaps AS (
    SELECT day, agent_id,
           least(coalesce(day - lag(day) OVER (PARTITION BY agent_id, user_id ORDER BY day), 28), 28) AS gap_days
      FROM entries
), histogram AS (
    SELECT day, agent_id, gap_days, count(*) AS users FROM gaps WHERE day >= $start_day GROUP BY ALL
), since AS (
    SELECT h.day, h.agent_id, k.k, coalesce(sum(h.users) FILTER (WHERE h.gap_days >= k.k), 0) AS users
      FROM histogram AS h, range(1, 29) AS k(k)
     GROUP BY ALL
)
SELECT $scope AS scope, $scope_name AS scope_name, day, agent_id,
       list(CAST(users AS BIGINT) ORDER BY k) AS users_since
  FROM since
 GROUP BY day, agent_id;
