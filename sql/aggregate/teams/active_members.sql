-- The people behind each figure of $days, as core.team_report_days counts them: a team-day's
-- active members (in the day's 1-day user report, with activity) and a scope-day's active users
-- (its user rows with activity). Read by nested_teams.sql and uncovered_teams.sql.
CREATE OR REPLACE TEMP TABLE aggregate_active_users AS
SELECT DISTINCT scope, scope_name, day, user_id
FROM core.user_daily_totals
-- The bounds let the scans skip the other days' row groups.
WHERE day BETWEEN $first AND $last AND day IN (SELECT unnest(CAST($days AS DATE[]))) AND report_kind = '1-day'
  AND (coalesce(user_initiated_interaction_count, 0) > 0 OR coalesce(code_generation_activity_count, 0) > 0
       OR coalesce(used_agent, FALSE) OR coalesce(used_chat, FALSE) OR coalesce(used_cli, FALSE));
CREATE OR REPLACE TEMP TABLE aggregate_active_members AS
SELECT DISTINCT t.scope, t.scope_name, t.day, t.team_id, t.user_id
FROM core.user_team_days AS t
SEMI JOIN aggregate_active_users AS u
  ON u.scope = t.scope AND u.scope_name = t.scope_name AND u.day = t.day AND u.user_id = t.user_id
WHERE t.day BETWEEN $first AND $last AND t.day IN (SELECT unnest(CAST($days AS DATE[])));
