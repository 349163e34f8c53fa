-- Which teams adopt which agent apps? (extension: teams) One row per scope, team and agent over
-- the last 28 days of 1-day user reports: the team's members who used the agent, counted
-- distinct over the window and each through the team they were on the day they used it; their
-- share of the team's members in the window; and their job starts. A user on two teams counts
-- in both. Teams are grouped on team_id and shown with their latest slug.
WITH bounds AS (
    SELECT max(day) AS last_day FROM core.user_daily_totals WHERE report_kind = '1-day'
), members AS (
    SELECT t.scope, t.scope_name, t.team_id, t.day, t.user_id
    FROM core.user_team_days AS t, bounds AS b
    WHERE t.day > b.last_day - 28
), team_size AS (
    SELECT scope, scope_name, team_id, count(DISTINCT user_id) AS members FROM members GROUP BY ALL
), used AS (
    SELECT m.scope, m.scope_name, m.team_id, a.agent_id,
           count(DISTINCT a.user_id) AS agent_users, CAST(sum(a.agent_job_starts) AS BIGINT) AS agent_job_starts
    FROM members AS m
    JOIN core.user_daily_totals AS u
      ON u.scope = m.scope AND u.scope_name = m.scope_name AND u.day = m.day AND u.user_id = m.user_id
     AND u.report_kind = '1-day'
    JOIN core.agent_activity AS a
      ON a.level = 'user' AND a.scope = m.scope AND a.scope_name = m.scope_name AND a.day = m.day
     AND a.user_id = m.user_id
    GROUP BY ALL
)
SELECT x.scope, x.scope_name, x.team_id, d.slug AS team_slug, x.agent_id,
       coalesce(da.agent_name, x.agent_id) AS agent_name, x.agent_users, s.members,
       round(x.agent_users / s.members, 3) AS share_of_members, x.agent_job_starts
FROM used AS x
JOIN team_size AS s USING (scope, scope_name, team_id)
LEFT JOIN core.dim_team AS d USING (scope, scope_name, team_id)
LEFT JOIN core.dim_agent AS da ON da.agent_id = x.agent_id
ORDER BY x.scope, x.scope_name, team_slug, x.agent_users DESC, x.agent_id;
