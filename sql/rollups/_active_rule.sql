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
-- Which class a user line active on any surface is in, first that fits (core.user_report_days
-- counts each): ide (an IDE breakdown entry), app_only (the desktop app), cli_only (the CLI),
-- counts_only (counts but no dimensional breakdown at all: what the service confirmed by its
-- server-side telemetry alone), other_surface_only (the cloud agent, VS Code agents, a code
-- review or a third-party agent only); inactive otherwise. `has_dimensions`: the line has a
-- dimensional breakdown (the CLI's object is none); `in_ide`: one of an IDE.
CREATE OR REPLACE MACRO core.line_class(u, third_party_agent_job_starts, has_dimensions, in_ide) AS
    CASE WHEN NOT core.active_on_any_surface(u, third_party_agent_job_starts) THEN 'inactive'
         WHEN coalesce(in_ide, FALSE) THEN 'ide'
         WHEN coalesce(u.used_assistant_app, FALSE) THEN 'app_only'
         WHEN coalesce(u.used_cli, FALSE) THEN 'cli_only'
         WHEN NOT coalesce(has_dimensions, FALSE) AND (coalesce(u.user_initiated_interaction_count, 0) > 0
                                                      OR coalesce(u.code_generation_activity_count, 0) > 0)
             THEN 'counts_only'
         ELSE 'other_surface_only' END;
-- Whether the service's own daily_active_users counts a line of that class on that day: IDE users
-- and those it saw by counts alone, and, since 2026-07-28 (its changelog), users active only in
-- the desktop app; never CLI-only users nor those active only on other surfaces. (The users its
-- server-side telemetry alone confirmed have inactive lines: only its count tells how many.)
CREATE OR REPLACE MACRO core.service_counts_class(class, day) AS
    class IN ('ide', 'counts_only') OR (class = 'app_only' AND day >= DATE '2026-07-28');
-- Whether a user line is behind a sum of the report's counts (any of them not zero): a line
-- active only on surfaces that carry no counts is behind none.
CREATE OR REPLACE MACRO core.has_counts(u) AS
    coalesce(u.user_initiated_interaction_count, 0) <> 0 OR coalesce(u.code_generation_activity_count, 0) <> 0
    OR coalesce(u.code_acceptance_activity_count, 0) <> 0 OR coalesce(u.loc_suggested_to_add_sum, 0) <> 0
    OR coalesce(u.loc_added_sum, 0) <> 0 OR coalesce(u.loc_deleted_sum, 0) <> 0
    OR coalesce(u.ai_credits_used, 0) <> 0;
