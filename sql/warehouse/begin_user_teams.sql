-- A day's memberships are replaced inside its user report's landing transaction (extension:
-- docs/extensions.md). The teams the old rows named are kept aside, so their core.dim_team row
-- is refreshed too (a team gone from the report keeps its slug from the days it was seen).
CREATE OR REPLACE TEMP TABLE touched_teams AS
SELECT DISTINCT team_id FROM core.team_days
 WHERE scope = $scope AND scope_name = $scope_name AND day BETWEEN $start_day AND $end_day;
DELETE FROM core.team_days
 WHERE scope = $scope AND scope_name = $scope_name AND day BETWEEN $start_day AND $end_day;
DELETE FROM core.user_team_days
 WHERE scope = $scope AND scope_name = $scope_name AND day BETWEEN $start_day AND $end_day;
DELETE FROM raw.report_files
 WHERE scope = $scope AND scope_name = $scope_name AND report_kind = '1-day' AND level = 'user-teams'
   AND report_start_day = $start_day AND report_end_day = $end_day;
DELETE FROM raw.quarantine
 WHERE scope = $scope AND scope_name = $scope_name AND report_kind = '1-day' AND level = 'user-teams'
   AND report_start_day = $start_day AND report_end_day = $end_day AND cleared_at IS NULL;
