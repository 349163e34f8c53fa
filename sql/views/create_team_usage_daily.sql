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
WITH member_days AS (
    SELECT t.scope, t.scope_name, t.day, t.team_id, t.user_id,
           (coalesce(u.user_initiated_interaction_count, 0) > 0 OR coalesce(u.code_generation_activity_count, 0) > 0
            OR coalesce(u.used_agent, FALSE) OR coalesce(u.used_chat, FALSE) OR coalesce(u.used_cli, FALSE)) AS active,
           u.used_agent, u.user_initiated_interaction_count, u.code_generation_activity_count,
           u.code_acceptance_activity_count, u.loc_suggested_to_add_sum, u.loc_added_sum, u.loc_deleted_sum,
           u.ai_credits_used, u.is_final
    FROM core.user_team_days AS t
    JOIN core.user_daily_totals AS u
      ON u.scope = t.scope AND u.scope_name = t.scope_name AND u.day = t.day AND u.user_id = t.user_id
     AND u.report_kind = '1-day'
), agent_days AS (
    SELECT a.scope, a.scope_name, a.day, a.user_id, CAST(sum(a.agent_job_starts) AS BIGINT) AS agent_job_starts
    FROM core.agent_activity AS a
    WHERE a.level = 'user'
    GROUP BY ALL
), team_days AS (
    SELECT m.scope, m.scope_name, m.day, m.team_id,
           count(DISTINCT m.user_id) AS reported_users,
           count(DISTINCT m.user_id) FILTER (WHERE m.active) AS active_users,
           count(DISTINCT m.user_id) FILTER (WHERE a.agent_job_starts > 0) AS agent_users,
           CAST(sum(m.user_initiated_interaction_count) AS BIGINT) AS user_initiated_interaction_count,
           CAST(sum(m.code_generation_activity_count) AS BIGINT) AS code_generation_activity_count,
           CAST(sum(m.code_acceptance_activity_count) AS BIGINT) AS code_acceptance_activity_count,
           CAST(sum(m.loc_suggested_to_add_sum) AS BIGINT) AS loc_suggested_to_add_sum,
           CAST(sum(m.loc_added_sum) AS BIGINT) AS loc_added_sum,
           CAST(sum(m.loc_deleted_sum) AS BIGINT) AS loc_deleted_sum,
           sum(m.ai_credits_used) AS ai_credits_used,
           bool_and(m.is_final) AS is_final
    FROM member_days AS m
    LEFT JOIN agent_days AS a USING (scope, scope_name, day, user_id)
    GROUP BY ALL
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
