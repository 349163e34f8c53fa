-- The teams' AI credits as exact sums: DOUBLE sums of the members' DECIMAL(18,6) credits came out
-- in the last bits as the rows happened to be added, so a day re-landed (or a run killed and
-- re-run) could change a 28-day window's figure without a credit changing. DECIMAL(38,6) holds
-- any sum of those credits exactly, whatever the order.
ALTER TABLE IF EXISTS core.team_report_days ALTER COLUMN ai_credits_used TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS core.team_window_users ALTER COLUMN ai_credits_used TYPE DECIMAL(38,6);
