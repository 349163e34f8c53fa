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
    coalesce(dt.slug, CAST(t.team_id AS VARCHAR)) AS team_slug,
    t.agent_id,
    coalesce(da.agent_name, t.agent_id) AS agent_name,
    t.agent_users,
    t.agent_job_starts,
    t.is_final
FROM core.team_agent_days AS t
LEFT JOIN core.dim_team AS dt ON dt.scope = t.scope AND dt.scope_name = t.scope_name AND dt.team_id = t.team_id
LEFT JOIN core.dim_agent AS da ON da.agent_id = t.agent_id;

COMMENT ON VIEW bi.team_agent_usage_daily IS 'Extension. One row per scope, day, team and agent_id: members who used the agent that day and their job starts. A user on two teams counts in both.';
