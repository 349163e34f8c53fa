-- The days of $days in runs of about $people people each (one day more at most), worked out
-- together by active_members.sql: a day's people are its scopes' users active on any surface
-- (core.user_report_days) and its teams' members (core.team_days), an upper bound of the rows
-- active_members.sql holds for it, read from a few rows a day and no user row.
WITH days AS (
    SELECT unnest(CAST($days AS DATE[])) AS day
), users AS (
    SELECT day, sum(any_surface_active_users) AS people
    FROM core.user_report_days
    WHERE day IN (SELECT day FROM days)
    GROUP BY day
), members AS (
    SELECT day, sum(members) AS people
    FROM core.team_days
    WHERE day IN (SELECT day FROM days)
    GROUP BY day
), counted AS (
    SELECT d.day, coalesce(u.people, 0) + coalesce(m.people, 0) AS people
    FROM days AS d
    LEFT JOIN users AS u USING (day)
    LEFT JOIN members AS m USING (day)
)
-- A day is in the run its first person falls in.
SELECT day, CAST((sum(people) OVER (ORDER BY day) - people) // $people AS BIGINT) AS run
FROM counted
ORDER BY day
