-- Per-connection staging: a report's files land here one by one (a file restarted after an
-- expired link or a cut download is discarded by _file_index), then move to core in one
-- transaction.
CREATE OR REPLACE TEMP TABLE stage_daily_totals AS SELECT *, 0 AS _file_index FROM core.daily_totals LIMIT 0;
CREATE OR REPLACE TEMP TABLE stage_user_daily_totals AS SELECT *, 0 AS _file_index FROM core.user_daily_totals LIMIT 0;
CREATE OR REPLACE TEMP TABLE stage_breakdowns AS SELECT *, 0 AS _file_index FROM core.breakdowns LIMIT 0;
CREATE OR REPLACE TEMP TABLE stage_agent_activity AS SELECT *, 0 AS _file_index FROM core.agent_activity LIMIT 0;
CREATE OR REPLACE TEMP TABLE stage_quarantine AS SELECT *, 0 AS _file_index FROM raw.quarantine LIMIT 0;
CREATE OR REPLACE TEMP TABLE stage_report_files AS SELECT *, 0 AS _file_index FROM raw.report_files LIMIT 0;
