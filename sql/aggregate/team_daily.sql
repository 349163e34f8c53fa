-- aggregate.team_daily: bi.team_usage_daily where _team_day_status.sql shows the team-day: at least
-- $k of its members active that day (its figures are theirs: a member in the report without
-- activity adds nothing), and no scope-day minus it leaving fewer than $k people. Otherwise the
-- row stays, suppressed = true, every figure NULL. The full tier's third_party_agent_users is not
-- shown: those of two teams, one within the other, can differ by fewer than $k people when their
-- active members do not.
CREATE OR REPLACE TEMP TABLE aggregate_team_daily AS
SELECT
    t.scope,
    t.scope_name,
    t.day,
    t.team_id,
    t.team_slug,
    NOT s.shown AS suppressed,
    CASE WHEN s.shown THEN t.members END AS members,
    CASE WHEN s.shown THEN t.reported_users END AS reported_users,
    CASE WHEN s.shown THEN t.active_users END AS active_users,
    CASE WHEN s.shown THEN t.user_initiated_interaction_count END AS user_initiated_interaction_count,
    CASE WHEN s.shown THEN t.code_generation_activity_count END AS code_generation_activity_count,
    CASE WHEN s.shown THEN t.code_acceptance_activity_count END AS code_acceptance_activity_count,
    CASE WHEN s.shown THEN t.loc_suggested_to_add_sum END AS loc_suggested_to_add_sum,
    CASE WHEN s.shown THEN t.loc_added_sum END AS loc_added_sum,
    CASE WHEN s.shown THEN t.loc_deleted_sum END AS loc_deleted_sum,
    t.is_final
FROM bi.team_usage_daily AS t
JOIN aggregate_team_day_status AS s USING (scope, scope_name, day, team_id)
ORDER BY t.scope, t.scope_name, t.day, t.team_id
