-- One round of hiding teams where figures add up (aggregate.py repeats it until a round hides
-- none). A container (a scope-day, or a shown team-day) minus shown team-days of the same date
-- that lie within it (its parts, of any scope) and do not overlap leaves the figures of the people
-- of it in none of them, a set that always holds those in none of its parts (uncovered). So a
-- container with parts is left as it is only when
--   * $k people or more are uncovered (whatever is taken away, they are left), or
--   * nobody is, and no two of its parts overlap without one holding the other (then what is
--     left is whole parts and, within a part taken whole or not at all, what its own parts leave:
--     nobody or $k people or more, as each part is a container too);
-- otherwise this round hides, when 1..$k-1 people are uncovered, its smallest part (fewest active
-- members, then lowest id) of those with someone in no other part (if any: hiding it uncovers
-- people), or, when nobody is, the smaller team of each pair of its parts that cross.
-- Hiding only takes parts away, so the rounds end. The scope-day counts whether it is shown or
-- not: a scope period minus team periods is the sum of its days' differences. A team with the
-- same active members as the container has its figures, and is no part of it. Each round is
-- run for both definitions of the people behind figures: the counts (a team's active members;
-- a scope's users the service's daily_active_users counts, and as many more as its count holds
-- beyond them, whom only its telemetry saw) and ($sums) the sums (the members and users whose
-- lines carry counts). Reads aggregate_active_users and aggregate_active_members
-- (active_members.sql), aggregate_scope_day_status and aggregate_uncovered_shown (the team-days
-- shown so far of the days worked out again), of the days $days only: every figure is of one
-- date, so a day whose last round hid nothing is settled and the rounds go on without it.
-- Returns the days this round hid a team on.
CREATE OR REPLACE TEMP TABLE aggregate_uncovered_round AS
WITH shown AS (
    SELECT m.*
    FROM aggregate_active_members AS m
    SEMI JOIN aggregate_uncovered_shown AS s USING (scope, scope_name, day, team_id)
    WHERE (NOT $sums OR m.with_counts) AND m.day IN (SELECT unnest(CAST($days AS DATE[])))
), sizes AS (
    SELECT scope, scope_name, day, team_id, count(*) AS members
    FROM shown
    GROUP BY ALL
), containers AS (
    SELECT scope, scope_name, day, CAST(NULL AS BIGINT) AS team_id, user_id
    FROM aggregate_active_users
    WHERE CASE WHEN $sums THEN with_counts ELSE counted END AND day IN (SELECT unnest(CAST($days AS DATE[])))
    UNION ALL
    SELECT scope, scope_name, day, team_id, user_id FROM shown
), container_sizes AS (
    SELECT c.scope, c.scope_name, c.day, c.team_id,
           -- A scope's count holds the users only its telemetry saw beside those its lines tell.
           CASE WHEN c.team_id IS NULL AND NOT $sums THEN greatest(count(*), any_value(r.dau)) ELSE count(*) END
               AS members
    FROM containers AS c
    LEFT JOIN aggregate_scope_day_status AS r
      ON c.team_id IS NULL AND r.scope = c.scope AND r.scope_name = c.scope_name AND r.day = c.day
    GROUP BY c.scope, c.scope_name, c.day, c.team_id
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
    -- The container's people in some part (a part's people all are the container's), and in how many.
    SELECT p.scope, p.scope_name, p.day, p.team_id, m.user_id, count(*) AS parts
    FROM parts AS p
    JOIN shown AS m ON m.scope = p.p_scope AND m.scope_name = p.p_name AND m.day = p.day AND m.team_id = p.p_team
    GROUP BY ALL
), alone AS (
    -- Parts with someone in no other part of the container: hiding one of them uncovers people.
    SELECT DISTINCT p.scope, p.scope_name, p.day, p.team_id, p.p_scope, p.p_name, p.p_team
    FROM parts AS p
    JOIN shown AS m ON m.scope = p.p_scope AND m.scope_name = p.p_name AND m.day = p.day AND m.team_id = p.p_team
    JOIN covered AS v
      ON v.scope = p.scope AND v.scope_name = p.scope_name AND v.day = p.day AND v.team_id IS NOT DISTINCT FROM p.team_id
     AND v.user_id = m.user_id AND v.parts = 1
), left_over AS (
    SELECT c.scope, c.scope_name, c.day, c.team_id, any_value(c.members) - count(*) AS people
    FROM container_sizes AS c
    JOIN covered AS v
      ON v.scope = c.scope AND v.scope_name = c.scope_name AND v.day = c.day AND v.team_id IS NOT DISTINCT FROM c.team_id
    GROUP BY c.scope, c.scope_name, c.day, c.team_id
), crossing AS (
    -- Pairs of shown team-days that share some active members but neither holds the other's
    -- (counted from the people they share, never from every pair of teams).
    SELECT a.scope AS a_scope, a.scope_name AS a_name, a.team_id AS a_team, b.scope AS b_scope,
           b.scope_name AS b_name, b.team_id AS b_team, a.day,
           -- The smaller of the two (fewer active members, then the later key) is the one hidden.
           CASE WHEN (x.members, b.scope, b.scope_name, b.team_id) < (y.members, a.scope, a.scope_name, a.team_id)
                THEN {'scope': a.scope, 'scope_name': a.scope_name, 'team_id': a.team_id}
                ELSE {'scope': b.scope, 'scope_name': b.scope_name, 'team_id': b.team_id} END AS smaller
    FROM shown AS a
    JOIN shown AS b
      ON b.day = a.day AND b.user_id = a.user_id AND (b.scope, b.scope_name, b.team_id) < (a.scope, a.scope_name, a.team_id)
    JOIN sizes AS x ON x.scope = a.scope AND x.scope_name = a.scope_name AND x.day = a.day AND x.team_id = a.team_id
    JOIN sizes AS y ON y.scope = b.scope AND y.scope_name = b.scope_name AND y.day = a.day AND y.team_id = b.team_id
    GROUP BY ALL
    HAVING count(*) < least(any_value(x.members), any_value(y.members))
), tangled AS (
    -- Containers holding both teams of such a pair, and the smaller.
    SELECT DISTINCT p.scope, p.scope_name, p.day, p.team_id, c.smaller
    FROM crossing AS c
    JOIN parts AS p ON p.day = c.day AND p.p_scope = c.a_scope AND p.p_name = c.a_name AND p.p_team = c.a_team
    JOIN parts AS q
      ON q.scope = p.scope AND q.scope_name = p.scope_name AND q.day = p.day AND q.team_id IS NOT DISTINCT FROM p.team_id
     AND q.p_scope = c.b_scope AND q.p_name = c.b_name AND q.p_team = c.b_team
), smallest AS (
    SELECT l.day, arg_min({'scope': p.p_scope, 'scope_name': p.p_name, 'team_id': p.p_team},
                          (a.p_team IS NULL, p.members, p.p_team, p.p_scope, p.p_name)) AS team
    FROM left_over AS l
    JOIN parts AS p
      ON p.scope = l.scope AND p.scope_name = l.scope_name AND p.day = l.day AND p.team_id IS NOT DISTINCT FROM l.team_id
    LEFT JOIN alone AS a
      ON a.scope = p.scope AND a.scope_name = p.scope_name AND a.day = p.day AND a.team_id IS NOT DISTINCT FROM p.team_id
     AND a.p_scope = p.p_scope AND a.p_name = p.p_name AND a.p_team = p.p_team
    WHERE l.people BETWEEN 1 AND $k - 1
    GROUP BY l.scope, l.scope_name, l.day, l.team_id
    UNION ALL
    -- Nobody uncovered: the smaller of every crossing pair at once, which leaves no pair crossing.
    SELECT l.day, t.smaller
    FROM left_over AS l
    JOIN tangled AS t
      ON t.scope = l.scope AND t.scope_name = l.scope_name AND t.day = l.day AND t.team_id IS NOT DISTINCT FROM l.team_id
    WHERE l.people = 0
)
SELECT DISTINCT team.scope, team.scope_name, day, team.team_id
FROM smallest;
DELETE FROM aggregate_uncovered_shown AS s
USING aggregate_uncovered_round AS r
WHERE s.scope = r.scope AND s.scope_name = r.scope_name AND s.day = r.day AND s.team_id = r.team_id;
INSERT INTO aggregate_uncovered_hidden SELECT * FROM aggregate_uncovered_round;
SELECT DISTINCT day FROM aggregate_uncovered_round
