-- core.user_report_days for a scope's days $start_day..$end_day, from core.user_daily_totals.
-- active_users: lines with interactions or code generation. any_surface_active_users: lines
-- active on any documented surface (core.active_on_any_surface, _active_rule.sql), each in one
-- class (core.line_class): ide_users, app_only_users, cli_only_users, counts_only_users,
-- other_surface_only_users. inactive_users: the
-- other lines, which show no activity; among them are the users the service's server-side
-- telemetry alone confirmed active, whose lines it sends empty (bi.reconciliation).
INSERT INTO core.user_report_days BY NAME
WITH agent_days AS (
    SELECT day, user_id, sum(agent_job_starts) AS job_starts
      FROM core.agent_activity
     WHERE level = 'user' AND scope = $scope AND scope_name = $scope_name AND day BETWEEN $start_day AND $end_day
     GROUP BY ALL
), dimensions AS (
    -- The user-days with a dimensional breakdown (the CLI's object is none), and with an IDE's.
    SELECT day, user_id, bool_or(kind = 'ide') AS in_ide
      FROM core.breakdowns
     WHERE level = 'user' AND kind <> 'cli' AND scope = $scope AND scope_name = $scope_name
       AND day BETWEEN $start_day AND $end_day
     GROUP BY ALL
), lines AS (
    SELECT u.*,
           core.active_on_any_surface(u, a.job_starts) AS any_surface,
           core.line_class(u, a.job_starts, d.user_id IS NOT NULL, d.in_ide) AS class
      FROM core.user_daily_totals AS u
      LEFT JOIN agent_days AS a ON a.day = u.day AND a.user_id = u.user_id
      LEFT JOIN dimensions AS d ON d.day = u.day AND d.user_id = u.user_id
     WHERE u.scope = $scope AND u.scope_name = $scope_name AND u.day BETWEEN $start_day AND $end_day
)
SELECT scope, scope_name, day,
       count(*) AS user_records,
       count(*) FILTER (WHERE user_initiated_interaction_count > 0 OR code_generation_activity_count > 0)
           AS active_users,
       count(*) FILTER (WHERE any_surface) AS any_surface_active_users,
       count(*) FILTER (WHERE class = 'ide') AS ide_users,
       count(*) FILTER (WHERE class = 'app_only') AS app_only_users,
       count(*) FILTER (WHERE class = 'cli_only') AS cli_only_users,
       count(*) FILTER (WHERE class = 'counts_only') AS counts_only_users,
       count(*) FILTER (WHERE class = 'other_surface_only') AS other_surface_only_users,
       count(*) FILTER (WHERE class = 'inactive') AS inactive_users,
       count(*) FILTER (WHERE agent_breakdown_present) AS users_with_agent_array,
       bool_or(agent_breakdown_present) AS agent_breakdown_present,
       CAST(sum(user_initiated_interaction_count) AS BIGINT) AS user_initiated_interaction_count,
       CAST(sum(code_generation_activity_count) AS BIGINT) AS code_generation_activity_count,
       CAST(sum(code_acceptance_activity_count) AS BIGINT) AS code_acceptance_activity_count,
       CAST(sum(loc_suggested_to_add_sum) AS BIGINT) AS loc_suggested_to_add_sum,
       CAST(sum(loc_suggested_to_delete_sum) AS BIGINT) AS loc_suggested_to_delete_sum,
       CAST(sum(loc_added_sum) AS BIGINT) AS loc_added_sum,
       CAST(sum(loc_deleted_sum) AS BIGINT) AS loc_deleted_sum,
       count(*) FILTER (WHERE used_assistant_cloud_agent) AS cloud_agent_users,
       count(used_assistant_cloud_agent) > 0 AS cloud_agent_carried,
       count(*) FILTER (WHERE used_assistant_app) AS app_users,
       count(used_assistant_app) > 0 AS app_carried,
       count(*) FILTER (WHERE used_vscode_agent) AS vscode_agent_users,
       count(used_vscode_agent) > 0 AS vscode_agent_carried,
       count(*) FILTER (WHERE used_cli) AS cli_users,
       count(used_cli) > 0 AS cli_carried,
       bool_and(is_final) AS is_final,
       max(fetched_at) AS fetched_at
  FROM lines
 GROUP BY scope, scope_name, day;
