-- The people behind each figure of $days, as core.team_report_days counts them: a team-day's
-- active members (in the day's 1-day user report, with activity) and a scope-day's active users
-- (its user rows active on any surface, sql/rollups/_active_rule.sql). Read by nested_teams.sql and uncovered_teams.sql.
CREATE OR REPLACE TEMP TABLE aggregate_active_users AS
WITH agent_days AS (
    SELECT scope, scope_name, day, user_id, sum(agent_job_starts) AS job_starts
    FROM core.agent_activity
    WHERE level = 'user' AND day BETWEEN $first AND $last AND day IN (SELECT unnest(CAST($days AS DATE[])))
    GROUP BY ALL
)
SELECT DISTINCT u.scope, u.scope_name, u.day, u.user_id
FROM core.user_daily_totals AS u
LEFT JOIN agent_days AS a USING (scope, scope_name, day, user_id)
-- The bounds let the scans skip the other days' row groups.
WHERE u.day BETWEEN $first AND $last AND u.day IN (SELECT unnest(CAST($days AS DATE[]))) AND u.report_kind = '1-day'
  AND core.active_on_any_surface(u, a.job_starts);
CREATE OR REPLACE TEMP TABLE aggregate_active_members AS
SELECT DISTINCT t.scope, t.scope_name, t.day, t.team_id, t.user_id
FROM core.user_team_days AS t
SEMI JOIN aggregate_active_users AS u
  ON u.scope = t.scope AND u.scope_name = t.scope_name AND u.day = t.day AND u.user_id = t.user_id
WHERE t.day BETWEEN $first AND $last AND t.day IN (SELECT unnest(CAST($days AS DATE[])));
