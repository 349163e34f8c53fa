-- One round of hiding teams where figures add up (aggregate.py repeats it until a round hides
-- none). A scope-day, or a shown team-day, minus shown team-days of the same date that lie within
-- it and do not overlap leaves the figures of the people of it in none of them; with every such
-- team taken away that is its active users in no shown team within it (of any scope). Unless
-- that is nobody or $k people or more, the smallest shown team within it (fewest active members,
-- then lowest id) is hidden this round; hiding only grows what is left, so the rounds end. The
-- scope-day counts whether it is shown or not: a scope period minus team periods is the sum of
-- its days' differences. Teams with the same active members as the container are its figures,
-- not a part of them. Reads aggregate_active_users and aggregate_active_members (active_members.sql)
-- and aggregate_uncovered_shown (the team-days shown so far of the days worked out again).
CREATE OR REPLACE TEMP TABLE aggregate_uncovered_round AS
WITH shown AS (
    SELECT m.*
    FROM aggregate_active_members AS m
    SEMI JOIN aggregate_uncovered_shown AS s USING (scope, scope_name, day, team_id)
), sizes AS (
    SELECT scope, scope_name, day, team_id, count(*) AS members
    FROM shown
    GROUP BY ALL
), containers AS (
    SELECT scope, scope_name, day, CAST(NULL AS BIGINT) AS team_id, user_id FROM aggregate_active_users
    UNION ALL
    SELECT scope, scope_name, day, team_id, user_id FROM shown
), container_sizes AS (
    SELECT scope, scope_name, day, team_id, count(*) AS members
    FROM containers
    GROUP BY ALL
), shared AS (
    SELECT c.scope, c.scope_name, c.day, c.team_id,
           p.scope AS p_scope, p.scope_name AS p_name, p.team_id AS p_team, count(*) AS members
    FROM containers AS c
    JOIN shown AS p ON p.day = c.day AND p.user_id = c.user_id
    GROUP BY ALL
), parts AS (
    SELECT s.scope, s.scope_name, s.day, s.team_id, s.p_scope, s.p_name, s.p_team, s.members
    FROM shared AS s
    JOIN sizes AS p ON p.scope = s.p_scope AND p.scope_name = s.p_name AND p.day = s.day AND p.team_id = s.p_team
    JOIN container_sizes AS c
      ON c.scope = s.scope AND c.scope_name = s.scope_name AND c.day = s.day
     AND c.team_id IS NOT DISTINCT FROM s.team_id
    WHERE s.members = p.members AND p.members < c.members
), covered AS (
    SELECT DISTINCT c.scope, c.scope_name, c.day, c.team_id, c.user_id
    FROM containers AS c
    JOIN parts AS p
      ON p.scope = c.scope AND p.scope_name = c.scope_name AND p.day = c.day AND p.team_id IS NOT DISTINCT FROM c.team_id
    SEMI JOIN shown AS m
      ON m.scope = p.p_scope AND m.scope_name = p.p_name AND m.day = c.day AND m.team_id = p.p_team
     AND m.user_id = c.user_id
), left_over AS (
    SELECT c.scope, c.scope_name, c.day, c.team_id, any_value(c.members) - count(*) AS people
    FROM container_sizes AS c
    JOIN covered AS v
      ON v.scope = c.scope AND v.scope_name = c.scope_name AND v.day = c.day AND v.team_id IS NOT DISTINCT FROM c.team_id
    GROUP BY c.scope, c.scope_name, c.day, c.team_id
), smallest AS (
    SELECT l.day, arg_min({'scope': p.p_scope, 'scope_name': p.p_name, 'team_id': p.p_team},
                          (p.members, p.p_team, p.p_scope, p.p_name)) AS team
    FROM left_over AS l
    JOIN parts AS p
      ON p.scope = l.scope AND p.scope_name = l.scope_name AND p.day = l.day AND p.team_id IS NOT DISTINCT FROM l.team_id
    WHERE l.people BETWEEN 1 AND $k - 1
    GROUP BY l.scope, l.scope_name, l.day, l.team_id
)
SELECT DISTINCT team.scope, team.scope_name, day, team.team_id
FROM smallest;
DELETE FROM aggregate_uncovered_shown AS s
USING aggregate_uncovered_round AS r
WHERE s.scope = r.scope AND s.scope_name = r.scope_name AND s.day = r.day AND s.team_id = r.team_id;
INSERT INTO aggregate_uncovered_hidden SELECT * FROM aggregate_uncovered_round;
SELECT count(*) FROM aggregate_uncovered_round

