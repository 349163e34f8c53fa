-- Runs inside one transaction: the report's days (for its scope, scope name and level) are
-- replaced by the staged rows, so the newest fetch wins and a re-run changes nothing.
DELETE FROM core.daily_totals
 WHERE $level = 'aggregate' AND scope = $scope AND scope_name = $scope_name
   AND day BETWEEN $start_day AND $end_day;
DELETE FROM core.user_daily_totals
 WHERE $level = 'user' AND scope = $scope AND scope_name = $scope_name
   AND day BETWEEN $start_day AND $end_day;
DELETE FROM core.breakdowns
 WHERE level = $level AND scope = $scope AND scope_name = $scope_name
   AND day BETWEEN $start_day AND $end_day;
DELETE FROM core.agent_activity
 WHERE level = $level AND scope = $scope AND scope_name = $scope_name
   AND day BETWEEN $start_day AND $end_day;
DELETE FROM raw.report_files
 WHERE scope = $scope AND scope_name = $scope_name AND report_kind = $report_kind AND level = $level
   AND report_start_day = $start_day AND report_end_day = $end_day;
DELETE FROM raw.quarantine
 WHERE scope = $scope AND scope_name = $scope_name AND report_kind = $report_kind AND level = $level
   AND report_start_day = $start_day AND report_end_day = $end_day;
INSERT INTO core.daily_totals BY NAME SELECT * EXCLUDE (_file_index) FROM stage_daily_totals;
INSERT INTO core.user_daily_totals BY NAME SELECT * EXCLUDE (_file_index) FROM stage_user_daily_totals;
INSERT INTO core.breakdowns BY NAME SELECT * EXCLUDE (_file_index) FROM stage_breakdowns;
INSERT INTO core.agent_activity BY NAME SELECT * EXCLUDE (_file_index) FROM stage_agent_activity;
INSERT INTO raw.report_files BY NAME SELECT * EXCLUDE (_file_index) FROM stage_report_files;
INSERT INTO raw.quarantine BY NAME SELECT * EXCLUDE (_file_index) FROM stage_quarantine;
