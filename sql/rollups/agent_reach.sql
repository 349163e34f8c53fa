-- core.agent_reach for a scope's days $start_day..$end_day: each user-level agent entry with
-- the days since that user's previous entry of the agent. Entries from 27 days before
-- $start_day are read for those gaps, none before: a longer gap counts as 28.
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
)
SELECT $scope AS scope, $scope_name AS scope_name, day, agent_id, gap_days, count(*) AS users
  FROM gaps
 WHERE day >= $start_day
 GROUP BY ALL;
