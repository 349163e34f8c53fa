-- Team-days whose people (aggregate_active_members, of the days worked out again) are all people
-- of another team-day of the same date, of any scope (a person keeps their user id in every
-- scope), that has 1..$k-1 more: the other team minus this one would be those few people's
-- figures, so this one is not shown. Teams with the same people have the same figures: their
-- difference is nothing. Judged by both definitions (aggregate.py runs it for each): the active
-- members behind a team's active_users, and ($sums) the members behind its sums.
WITH people AS (
    SELECT * FROM aggregate_active_members WHERE NOT $sums OR with_counts
), sizes AS (
    SELECT scope, scope_name, day, team_id, count(*) AS members
    FROM people
    GROUP BY ALL
), shared AS (
    SELECT b.scope, b.scope_name, b.day, b.team_id, a.scope AS a_scope, a.scope_name AS a_scope_name,
           a.team_id AS a_team_id, count(*) AS members
    FROM people AS b
    JOIN people AS a
      ON a.day = b.day AND a.user_id = b.user_id
     AND (a.scope <> b.scope OR a.scope_name <> b.scope_name OR a.team_id <> b.team_id)
    GROUP BY ALL
)
SELECT DISTINCT s.scope, s.scope_name, s.day, s.team_id
FROM shared AS s
JOIN sizes AS b USING (scope, scope_name, day, team_id)
JOIN sizes AS a ON a.scope = s.a_scope AND a.scope_name = s.a_scope_name AND a.day = s.day AND a.team_id = s.a_team_id
WHERE b.members >= $k AND s.members = b.members AND a.members - b.members BETWEEN 1 AND $k - 1
ORDER BY ALL
