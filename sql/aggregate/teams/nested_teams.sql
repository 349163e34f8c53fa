-- Team-days of $days whose active members (as core.team_report_days counts them: in the day's
-- 1-day user report, with activity) are all active members of another team-day of the same date,
-- of any scope (a person keeps their user id in every scope), that has 1..$k-1 more: the other
-- team minus this one would be those few people's figures, so this one is not shown. Teams with
-- the same active members have the same figures: their difference is nothing.
WITH active AS (
    SELECT DISTINCT t.scope, t.scope_name, t.day, t.team_id, t.user_id
    FROM core.user_team_days AS t
    JOIN core.user_daily_totals AS u
      ON u.scope = t.scope AND u.scope_name = t.scope_name AND u.day = t.day AND u.user_id = t.user_id
     AND u.report_kind = '1-day'
    -- The bounds let the scans skip the other days' row groups.
    WHERE t.day BETWEEN $first AND $last AND u.day BETWEEN $first AND $last
      AND t.day IN (SELECT unnest(CAST($days AS DATE[])))
      AND (coalesce(u.user_initiated_interaction_count, 0) > 0 OR coalesce(u.code_generation_activity_count, 0) > 0
           OR coalesce(u.used_agent, FALSE) OR coalesce(u.used_chat, FALSE) OR coalesce(u.used_cli, FALSE))
), sizes AS (
    SELECT scope, scope_name, day, team_id, count(*) AS members
    FROM active
    GROUP BY ALL
), shared AS (
    SELECT b.scope, b.scope_name, b.day, b.team_id, a.scope AS a_scope, a.scope_name AS a_scope_name,
           a.team_id AS a_team_id, count(*) AS members
    FROM active AS b
    JOIN active AS a
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
