-- pseudonymous.user_daily: core.user_daily_totals' per-user figures, each row's user id and
-- login replaced by its pseudonym (the registered in-memory table `pseudonyms`, user_id ->
-- pseudonym). Only declared figures: `extra` (what the service sent beyond them) may name people.
CREATE OR REPLACE TEMP TABLE pseudonymous_user_daily AS
SELECT
    u.scope,
    u.scope_name,
    u.day,
    u.report_kind,
    p.pseudonym,
    u.used_agent,
    u.used_chat,
    u.used_cli,
    u.user_initiated_interaction_count,
    u.code_generation_activity_count,
    u.code_acceptance_activity_count,
    u.loc_suggested_to_add_sum,
    u.loc_suggested_to_delete_sum,
    u.loc_added_sum,
    u.loc_deleted_sum,
    u.ai_credits_used,
    u.agent_breakdown_present,
    u.is_final
FROM core.user_daily_totals AS u
JOIN pseudonyms AS p USING (user_id)
ORDER BY u.scope, u.scope_name, u.day, p.pseudonym
