-- First statements of a report's landing transaction.
-- Which file each landed (day, user) came from, so a file fetched again can take its rows back
-- out of the open transaction. Three narrow columns: a few MB for 500,000 user-days.
CREATE OR REPLACE TEMP TABLE landed_keys (_file_index INTEGER NOT NULL, day DATE NOT NULL, user_id BIGINT);
-- At user level a day landed from its 1-day report stays: only the 1-day report comes with
-- that day's team memberships (docs/extensions.md), and team metrics never join a 28-day
-- user report to them. So a 28-day user report fills only the days no 1-day report landed.
CREATE OR REPLACE TEMP TABLE kept_days AS
SELECT DISTINCT day FROM core.user_daily_totals
 WHERE $level = 'user' AND $report_kind = '28-day' AND report_kind = '1-day'
   AND scope = $scope AND scope_name = $scope_name AND day BETWEEN $start_day AND $end_day;
-- The report's days (for its scope, scope name and level) go, so the rows landed next are the
-- newest fetch and a re-run changes nothing.
-- The agent ids the old rows named are kept aside: their dimension rows are refreshed too.
CREATE OR REPLACE TEMP TABLE touched_agents AS
SELECT DISTINCT agent_id FROM core.agent_days
 WHERE level = $level AND scope = $scope AND scope_name = $scope_name
   AND day BETWEEN $start_day AND $end_day;
DELETE FROM core.agent_days
 WHERE level = $level AND scope = $scope AND scope_name = $scope_name
   AND day BETWEEN $start_day AND $end_day;
DELETE FROM core.daily_totals
 WHERE $level = 'aggregate' AND scope = $scope AND scope_name = $scope_name
   AND day BETWEEN $start_day AND $end_day;
DELETE FROM core.user_daily_totals
 WHERE $level = 'user' AND scope = $scope AND scope_name = $scope_name
   AND day BETWEEN $start_day AND $end_day AND day NOT IN (SELECT day FROM kept_days);
DELETE FROM core.breakdowns
 WHERE level = $level AND scope = $scope AND scope_name = $scope_name
   AND day BETWEEN $start_day AND $end_day AND day NOT IN (SELECT day FROM kept_days);
DELETE FROM core.agent_activity
 WHERE level = $level AND scope = $scope AND scope_name = $scope_name
   AND day BETWEEN $start_day AND $end_day AND day NOT IN (SELECT day FROM kept_days);
DELETE FROM raw.report_files
 WHERE scope = $scope AND scope_name = $scope_name AND report_kind = $report_kind AND level = $level
   AND report_start_day = $start_day AND report_end_day = $end_day;
DELETE FROM raw.field_drift
 WHERE scope = $scope AND scope_name = $scope_name AND report_kind = $report_kind AND level = $level
   AND day BETWEEN $start_day AND $end_day;
-- Cleared lines stay: keep_cleared_quarantine.sql, at the end, keeps them cleared if served again.
DELETE FROM raw.quarantine
 WHERE scope = $scope AND scope_name = $scope_name AND report_kind = $report_kind AND level = $level
   AND report_start_day = $start_day AND report_end_day = $end_day AND cleared_at IS NULL;
