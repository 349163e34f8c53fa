SELECT count(*) AS failures, string_agg(DISTINCT scope_name || ' ' || day, ', ') AS detail
FROM core.daily_totals
WHERE least(user_initiated_interaction_count, code_generation_activity_count,
            code_acceptance_activity_count, loc_suggested_to_add_sum, loc_suggested_to_delete_sum,
            loc_added_sum, loc_deleted_sum, daily_active_users, weekly_active_users,
            monthly_active_users, monthly_active_chat_users, monthly_active_agent_users) < 0;
