-- Who a user line counts as active in the figures this warehouse derives from user lines (the
-- teams' active users, core.user_report_days.any_surface_active_users, the aggregate tier): the
-- one declaration of the documented surfaces. A user is active on a day they used any of them:
-- the IDE (interactions, code generation, chat, agent mode), the CLI, the desktop app, the cloud
-- agent, VS Code agents, a code review they asked for (a passive review, of a pull request they
-- opened, is none of their doing) or a third-party agent app (a job start that day). `u` is a
-- row of core.user_daily_totals (NULL when the user has no line that day: not active).
-- The service's own daily_active_users counts fewer surfaces: bi.reconciliation names the classes.
-- Created before the rollups are computed (pipelines/warehouse/rollups.py); a change here rebuilds them.
CREATE OR REPLACE MACRO core.active_on_any_surface(u, third_party_agent_job_starts) AS
    coalesce(u.user_initiated_interaction_count, 0) > 0 OR coalesce(u.code_generation_activity_count, 0) > 0
    OR coalesce(u.used_chat, FALSE) OR coalesce(u.used_agent, FALSE) OR coalesce(u.used_cli, FALSE)
    OR coalesce(u.used_assistant_app, FALSE) OR coalesce(u.used_assistant_cloud_agent, FALSE)
    OR coalesce(u.used_vscode_agent, FALSE) OR coalesce(u.used_assistant_code_review_active, FALSE)
    OR coalesce(third_party_agent_job_starts, 0) > 0;
