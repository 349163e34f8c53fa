-- core.user_report_days for a scope's days $start_day..$end_day, from core.user_daily_totals.
INSERT INTO core.user_report_days BY NAME
SELECT scope, scope_name, day,
       count(*) AS user_records,
       count(*) FILTER (WHERE user_initiated_interaction_count > 0 OR code_generation_activity_count > 0)
           AS active_users,
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
  FROM core.user_daily_totals
 WHERE scope = $scope AND scope_name = $scope_name AND day BETWEEN $start_day AND $end_day
 GROUP BY scope, scope_name, day;
