-- The people behind each figure of $days, by both definitions the tier shows: a scope-day's
-- users active on any surface (sql/rollups/_active_rule.sql), with whether their line carries
-- counts (behind its sums: with_counts) and whether the service's own daily_active_users counts
-- it (counted: core.service_counts_class), and a team-day's active members (in the day's 1-day
-- user report, active on any surface: its active_users) with whether they are behind its sums.
-- Read by nested_teams.sql and uncovered_teams.sql.
CREATE OR REPLACE TEMP TABLE aggregate_active_users AS
WITH agent_days AS (
    SELECT scope, scope_name, day, user_id, sum(agent_job_starts) AS job_starts
    FROM core.agent_activity
    WHERE level = 'user' AND day BETWEEN $first AND $last AND day IN (SELECT unnest(CAST($days AS DATE[])))
    GROUP BY ALL
), dimensions AS (
    -- The user-days with a dimensional breakdown (the CLI's object is none), and with an IDE's.
    SELECT scope, scope_name, day, user_id, bool_or(kind = 'ide') AS in_ide
    FROM core.breakdowns
    WHERE level = 'user' AND kind <> 'cli' AND day BETWEEN $first AND $last
      AND day IN (SELECT unnest(CAST($days AS DATE[])))
    GROUP BY ALL
)
SELECT u.scope, u.scope_name, u.day, u.user_id, bool_or(core.has_counts(u)) AS with_counts,
       bool_or(core.service_counts_class(core.line_class(u, a.job_starts, d.user_id IS NOT NULL, d.in_ide), u.day))
           AS counted
FROM core.user_daily_totals AS u
LEFT JOIN agent_days AS a USING (scope, scope_name, day, user_id)
LEFT JOIN dimensions AS d USING (scope, scope_name, day, user_id)
-- The bounds let the scans skip the other days' row groups.
WHERE u.day BETWEEN $first AND $last AND u.day IN (SELECT unnest(CAST($days AS DATE[]))) AND u.report_kind = '1-day'
  AND core.active_on_any_surface(u, a.job_starts)
GROUP BY ALL;
CREATE OR REPLACE TEMP TABLE aggregate_active_members AS
SELECT DISTINCT t.scope, t.scope_name, t.day, t.team_id, t.user_id, u.with_counts
FROM core.user_team_days AS t
JOIN aggregate_active_users AS u
  ON u.scope = t.scope AND u.scope_name = t.scope_name AND u.day = t.day AND u.user_id = t.user_id
WHERE t.day BETWEEN $first AND $last AND t.day IN (SELECT unnest(CAST($days AS DATE[])));
