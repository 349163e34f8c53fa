DELETE FROM stage_daily_totals WHERE _file_index = $file_index;
DELETE FROM stage_user_daily_totals WHERE _file_index = $file_index;
DELETE FROM stage_breakdowns WHERE _file_index = $file_index;
DELETE FROM stage_agent_activity WHERE _file_index = $file_index;
DELETE FROM stage_quarantine WHERE _file_index = $file_index;
DELETE FROM stage_report_files WHERE _file_index = $file_index;
