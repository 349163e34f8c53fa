-- core.team_report_days for a scope's days $start_day..$end_day: each day's memberships
-- (core.user_team_days) with that day's 1-day user records and third-party agent job starts;
-- active: on any documented surface (_active_rule.sql).
INSERT INTO core.team_report_days BY NAME
WITH agent_days AS (
    SELECT day, user_id, sum(agent_job_starts) AS agent_job_starts
      FROM core.agent_activity
     WHERE level = 'user' AND scope = $scope AND scope_name = $scope_name AND day BETWEEN $start_day AND $end_day
     GROUP BY ALL
), member_days AS (
    SELECT t.scope, t.scope_name, t.day, t.team_id, t.user_id, t.slug, t.fetched_at,
           coalesce(t.is_final, TRUE) AS membership_final,
           u.user_id IS NOT NULL AS reported,
           core.active_on_any_surface(u, a.agent_job_starts) AS active,
           coalesce(a.agent_job_starts, 0) > 0 AS third_party_agent,
           core.has_counts(u) AS with_counts,
           u.user_initiated_interaction_count, u.code_generation_activity_count, u.code_acceptance_activity_count,
           u.loc_suggested_to_add_sum, u.loc_added_sum, u.loc_deleted_sum, u.ai_credits_used, u.is_final
      FROM core.user_team_days AS t
      LEFT JOIN core.user_daily_totals AS u
        ON u.scope = t.scope AND u.scope_name = t.scope_name AND u.day = t.day AND u.user_id = t.user_id
       AND u.report_kind = '1-day'
      LEFT JOIN agent_days AS a ON a.day = t.day AND a.user_id = t.user_id AND u.user_id IS NOT NULL
     WHERE t.scope = $scope AND t.scope_name = $scope_name AND t.day BETWEEN $start_day AND $end_day
)
SELECT scope, scope_name, day, team_id,
       arg_max(slug, fetched_at) AS slug,
       count(DISTINCT user_id) AS members,
       count(DISTINCT user_id) FILTER (WHERE reported) AS reported_users,
       count(DISTINCT user_id) FILTER (WHERE reported AND active) AS active_users,
       count(DISTINCT user_id) FILTER (WHERE reported AND third_party_agent) AS third_party_agent_users,
       -- The people behind its sums: members active on a surface whose lines carry no counts add nothing.
       count(DISTINCT user_id) FILTER (WHERE reported AND with_counts) AS members_with_counts,
       CAST(sum(user_initiated_interaction_count) AS BIGINT) AS user_initiated_interaction_count,
       CAST(sum(code_generation_activity_count) AS BIGINT) AS code_generation_activity_count,
       CAST(sum(code_acceptance_activity_count) AS BIGINT) AS code_acceptance_activity_count,
       CAST(sum(loc_suggested_to_add_sum) AS BIGINT) AS loc_suggested_to_add_sum,
       CAST(sum(loc_added_sum) AS BIGINT) AS loc_added_sum,
       CAST(sum(loc_deleted_sum) AS BIGINT) AS loc_deleted_sum,
       sum(ai_credits_used) AS ai_credits_used,
       bool_and(is_final) AS is_final,
       bool_and(membership_final) AS membership_final
  FROM member_days
 GROUP BY ALL;
