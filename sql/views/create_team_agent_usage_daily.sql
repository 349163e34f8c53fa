-- bi.team_agent_usage_daily (extension: docs/extensions.md)
-- Grain: one row per scope, scope_name, day, team_id and agent_id that a member of the team
-- that day used, from the user-level agent entries of the day's 1-day user report joined to
-- that day's memberships. agent_users: distinct members with the agent; agent_job_starts: their
-- job starts (the nested count, never to be added to the top-level interaction count).
-- Labelled with the latest team slug and agent name; group on team_id and agent_id.
-- is_final: the day was final when its user-level report was fetched.
CREATE OR REPLACE VIEW bi.team_agent_usage_daily AS
SELECT
    t.scope,
    t.scope_name,
    t.day,
    t.team_id,
    coalesce(dt.slug, t.slug) AS team_slug,
    a.agent_id,
    coalesce(da.agent_name, a.agent_id) AS agent_name,
    count(DISTINCT a.user_id) AS agent_users,
    CAST(sum(a.agent_job_starts) AS BIGINT) AS agent_job_starts,
    bool_and(u.is_final) AS is_final
FROM core.user_team_days AS t
JOIN core.user_daily_totals AS u
  ON u.scope = t.scope AND u.scope_name = t.scope_name AND u.day = t.day AND u.user_id = t.user_id
 AND u.report_kind = '1-day'
JOIN core.agent_activity AS a
  ON a.level = 'user' AND a.scope = t.scope AND a.scope_name = t.scope_name AND a.day = t.day AND a.user_id = t.user_id
LEFT JOIN core.dim_team AS dt ON dt.scope = t.scope AND dt.scope_name = t.scope_name AND dt.team_id = t.team_id
LEFT JOIN core.dim_agent AS da ON da.agent_id = a.agent_id
GROUP BY ALL;

COMMENT ON VIEW bi.team_agent_usage_daily IS 'Extension. One row per scope, day, team and agent_id: members who used the agent that day and their job starts. A user on two teams counts in both.';
