-- bi.agent_surfaces_daily
-- Grain: one row per scope, scope_name, day and agent surface: the service's own cloud agent
-- (formerly "coding agent"), its desktop app, agent sessions in VS Code, its CLI, and each
-- third-party agent app by agent_id. One measure side by side for all of them, users: the
-- distinct users whose user-level record that day says they used it (for a third-party app: whose
-- record lists it). users_in_aggregate is the aggregate report's own daily count where it gives
-- one (daily_active_*_users; none for third-party apps); agent_sessions where the report gives them
-- (third-party apps and the CLI, aggregate report). Never a sum across surfaces or with job
-- starts or interactions: a person using two surfaces counts in both. NULL = the report did not
-- carry that surface's field (before the service added it, or no report), never 0.
CREATE OR REPLACE VIEW bi.agent_surfaces_daily AS
WITH users AS (
    SELECT scope, scope_name, day,
           cloud_agent_users AS cloud_agent, cloud_agent_carried,
           app_users AS app, app_carried,
           vscode_agent_users AS vscode_agent, vscode_agent_carried,
           cli_users AS cli, cli_carried,
           agent_breakdown_present AS agents_carried,
           is_final AS final
    FROM core.user_report_days
), aggregates AS (
    SELECT scope, scope_name, day,
           max(daily_active_assistant_cloud_agent_users) AS cloud_agent,
           max(daily_active_assistant_app_users) AS app,
           max(daily_active_vscode_agent_users) AS vscode_agent,
           max(daily_active_cli_users) AS cli,
           bool_and(is_final) AS final
    FROM core.daily_totals
    GROUP BY scope, scope_name, day
), cli_sessions AS (
    SELECT scope, scope_name, day, CAST(sum(session_count) AS BIGINT) AS sessions
    FROM core.breakdowns
    WHERE level = 'aggregate' AND kind = 'cli'
    GROUP BY scope, scope_name, day
), days AS (
    SELECT scope, scope_name, day FROM users
    UNION
    SELECT scope, scope_name, day FROM aggregates
), first_party AS (
    SELECT d.scope, d.scope_name, d.day, s.surface, s.surface_name,
           CASE s.surface
               WHEN 'cloud_agent' THEN CASE WHEN u.cloud_agent_carried THEN u.cloud_agent END
               WHEN 'app' THEN CASE WHEN u.app_carried THEN u.app END
               WHEN 'vscode_agent' THEN CASE WHEN u.vscode_agent_carried THEN u.vscode_agent END
               ELSE CASE WHEN u.cli_carried THEN u.cli END
           END AS users,
           CASE s.surface
               WHEN 'cloud_agent' THEN a.cloud_agent WHEN 'app' THEN a.app
               WHEN 'vscode_agent' THEN a.vscode_agent ELSE a.cli
           END AS users_in_aggregate,
           CASE WHEN s.surface = 'cli' THEN c.sessions END AS agent_sessions,
           coalesce(u.final, TRUE) AND coalesce(a.final, TRUE) AS is_final
    FROM days AS d
    CROSS JOIN (VALUES ('cloud_agent', 'cloud agent'), ('app', 'desktop app'), ('vscode_agent', 'VS Code agents'),
                       ('cli', 'CLI')) AS s(surface, surface_name)
    LEFT JOIN users AS u USING (scope, scope_name, day)
    LEFT JOIN aggregates AS a USING (scope, scope_name, day)
    LEFT JOIN cli_sessions AS c USING (scope, scope_name, day)
), third_party_users AS (
    SELECT scope, scope_name, day, agent_id, CAST(sum(agent_users) AS BIGINT) AS users
    FROM core.agent_days
    WHERE level = 'user'
    GROUP BY scope, scope_name, day, agent_id
), third_party_sessions AS (
    SELECT scope, scope_name, day, agent_id, CAST(sum(session_count) AS BIGINT) AS sessions
    FROM core.agent_days
    WHERE level = 'aggregate'
    GROUP BY scope, scope_name, day, agent_id
), third_party AS (
    SELECT k.scope, k.scope_name, k.day, 'third_party:' || k.agent_id AS surface,
           coalesce(n.agent_name, k.agent_id) AS surface_name,
           CASE WHEN t.agent_id IS NOT NULL THEN t.users WHEN u.agents_carried THEN 0 END AS users,
           CAST(NULL AS BIGINT) AS users_in_aggregate,
           s.sessions AS agent_sessions,
           coalesce(u.final, TRUE) AND coalesce(a.final, TRUE) AS is_final
    FROM (SELECT scope, scope_name, day, agent_id FROM third_party_users
          UNION SELECT scope, scope_name, day, agent_id FROM third_party_sessions) AS k
    LEFT JOIN third_party_users AS t USING (scope, scope_name, day, agent_id)
    LEFT JOIN third_party_sessions AS s USING (scope, scope_name, day, agent_id)
    LEFT JOIN users AS u USING (scope, scope_name, day)
    LEFT JOIN aggregates AS a USING (scope, scope_name, day)
    LEFT JOIN core.dim_agent AS n ON n.agent_id = k.agent_id
)
SELECT * FROM first_party
UNION ALL
SELECT * FROM third_party;

COMMENT ON VIEW bi.agent_surfaces_daily IS 'One row per scope, day and agent surface (the cloud agent, the desktop app, VS Code agents, the CLI, each third-party agent app): the users who used it that day, side by side in one measure, with the aggregate report''s own count and sessions where it gives them. NULL = not carried, never 0. Never sum across surfaces: a person using two counts in both.';
