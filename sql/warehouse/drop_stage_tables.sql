DROP TABLE IF EXISTS stage_daily_totals;
DROP TABLE IF EXISTS stage_user_daily_totals;
DROP TABLE IF EXISTS stage_breakdowns;
DROP TABLE IF EXISTS stage_agent_activity;
DROP TABLE IF EXISTS stage_quarantine;
DROP TABLE IF EXISTS stage_report_files;
