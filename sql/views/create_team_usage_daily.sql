-- bi.team_usage_daily (extension: docs/extensions.md)
-- Grain: one row per scope, scope_name, day and team_id listed in that day's user-teams report
-- (teams under 5 seated users that day are not listed, so have no row: a gap, not a zero).
-- A team's day is the inner join of that day's memberships with that day's 1-day user-level
-- records on (scope, day, user): activity goes to the team the user was on THAT day, and a user
-- on two teams counts in both, so rows do not add up to the organization. Never a 28-day user
-- report: only the 1-day report comes with memberships.
-- members: listed members that day; reported_users: of them, users in the day's user report;
-- active_users: of those, users with any activity. team_slug is the team's latest slug
-- (core.dim_team); group on team_id, as slugs change. agent_users: members with any
-- third-party agent job that day. Agent job starts, per agent_id, are in
-- bi.team_agent_usage_daily: never in a view with the top-level interaction count.
-- is_final: the day was final when its user-level report was fetched (NULL: no member reported).
CREATE OR REPLACE VIEW bi.team_usage_daily AS
WITH team_days AS (
    -- The rollup core.team_report_days: each team-day's users and sums, counted when it landed.
    SELECT scope, scope_name, day, team_id, reported_users, active_users, agent_users,
           user_initiated_interaction_count, code_generation_activity_count, code_acceptance_activity_count,
           loc_suggested_to_add_sum, loc_added_sum, loc_deleted_sum, ai_credits_used, is_final
    FROM core.team_report_days
)
SELECT
    l.scope,
    l.scope_name,
    l.day,
    l.team_id,
    coalesce(d.slug, l.slug) AS team_slug,
    l.slug AS slug_that_day,
    l.members,
    coalesce(t.reported_users, 0) AS reported_users,
    coalesce(t.active_users, 0) AS active_users,
    coalesce(t.agent_users, 0) AS agent_users,
    coalesce(t.user_initiated_interaction_count, 0) AS user_initiated_interaction_count,
    coalesce(t.code_generation_activity_count, 0) AS code_generation_activity_count,
    coalesce(t.code_acceptance_activity_count, 0) AS code_acceptance_activity_count,
    coalesce(t.loc_suggested_to_add_sum, 0) AS loc_suggested_to_add_sum,
    coalesce(t.loc_added_sum, 0) AS loc_added_sum,
    coalesce(t.loc_deleted_sum, 0) AS loc_deleted_sum,
    coalesce(t.ai_credits_used, 0) AS ai_credits_used,
    t.is_final
FROM core.team_days AS l
LEFT JOIN team_days AS t USING (scope, scope_name, day, team_id)
LEFT JOIN core.dim_team AS d USING (scope, scope_name, team_id);

COMMENT ON VIEW bi.team_usage_daily IS 'Extension. One row per scope, day and listed team: members, users and activity of the users on the team THAT day (1-day reports only). A user on two teams counts in both: rows do not add up to the organization. Group on team_id.';
