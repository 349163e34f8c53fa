-- The teams' agent_users counted users of third-party agent apps only, while the service's
-- monthly_active_agent_users means its IDE agent mode: the column says what it counts.
ALTER TABLE core.team_report_days RENAME COLUMN agent_users TO third_party_agent_users;
ALTER TABLE core.team_window_users RENAME COLUMN agent_users TO third_party_agent_users;
