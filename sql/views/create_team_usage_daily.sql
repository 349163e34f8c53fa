-- bi.team_usage_daily (extension: docs/extensions.md)
-- Grain: one row per scope, scope_name, day and team_id listed in that day's user-teams report
-- (teams under 5 seated users that day are not listed, so have no row: a gap, not a zero).
-- A team's day is the inner join of that day's memberships with that day's 1-day user-level
-- records on (scope, day, user): activity goes to the team the user was on THAT day, and a user
-- on two teams counts in both, so rows do not add up to the organization. Never a 28-day user
-- report: only the 1-day report comes with memberships.
-- members: listed members that day; reported_users: of them, users in the day's user report;
-- active_users: of those, users active on any documented surface (IDE, CLI, desktop app, cloud
-- agent, VS Code agents, a code review they asked for, a third-party agent app: the rule of
-- sql/rollups/_active_rule.sql), derived from user lines: the service gives no team figure.
-- team_slug is the team's latest slug (core.dim_team); group on team_id, as slugs change.
-- third_party_agent_users (agent_users before 2026-11): members with any third-party agent
-- app job that day; not the service's monthly_active_agent_users, which counts its IDE agent mode. Agent job starts, per agent_id, are in
-- bi.team_agent_usage_daily: never in a view with the top-level interaction count.
-- is_final: the day was final when its user-level report was fetched (NULL: no member reported).
CREATE OR REPLACE VIEW bi.team_usage_daily AS
SELECT
    t.scope,
    t.scope_name,
    t.day,
    t.team_id,
    coalesce(d.slug, t.slug) AS team_slug,
    t.slug AS slug_that_day,
    t.members,
    t.reported_users,
    t.active_users,
    t.third_party_agent_users,
    coalesce(t.user_initiated_interaction_count, 0) AS user_initiated_interaction_count,
    coalesce(t.code_generation_activity_count, 0) AS code_generation_activity_count,
    coalesce(t.code_acceptance_activity_count, 0) AS code_acceptance_activity_count,
    coalesce(t.loc_suggested_to_add_sum, 0) AS loc_suggested_to_add_sum,
    coalesce(t.loc_added_sum, 0) AS loc_added_sum,
    coalesce(t.loc_deleted_sum, 0) AS loc_deleted_sum,
    coalesce(t.ai_credits_used, 0) AS ai_credits_used,
    t.is_final
-- The rollup core.team_report_days: each listed team-day's users and sums, counted when it landed.
FROM core.team_report_days AS t
LEFT JOIN core.dim_team AS d USING (scope, scope_name, team_id);

COMMENT ON VIEW bi.team_usage_daily IS 'Extension. One row per scope, day and listed team: members, users and activity of the users on the team THAT day (1-day reports only). A user on two teams counts in both: rows do not add up to the organization. Group on team_id.';
