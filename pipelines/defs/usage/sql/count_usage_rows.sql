-- Row counts of the usage tables, for materialization metadata.
SELECT 'raw.report_files', count(*) FROM raw.report_files
UNION ALL SELECT 'raw.report_fetches', count(*) FROM raw.report_fetches
UNION ALL SELECT 'core.daily_totals', count(*) FROM core.daily_totals
UNION ALL SELECT 'core.user_daily_totals', count(*) FROM core.user_daily_totals
UNION ALL SELECT 'core.breakdowns', count(*) FROM core.breakdowns
UNION ALL SELECT 'core.agent_activity', count(*) FROM core.agent_activity
UNION ALL SELECT 'core.dim_agent', count(*) FROM core.dim_agent
UNION ALL SELECT 'core.agent_names', count(*) FROM core.agent_names;
