-- A vendor's endpoint landing again (inside its transaction): its archived files of the days it
-- fetched, and their lines still in quarantine (not cleared by a person), leave raw.report_files
-- and raw.quarantine; the fetch's own take their place.
DELETE FROM raw.report_files
 WHERE scope = $scope AND scope_name = $scope_name AND report_kind = $report_kind AND level = $level
   AND report_start_day BETWEEN $start_day AND $end_day;
DELETE FROM raw.quarantine
 WHERE scope = $scope AND scope_name = $scope_name AND report_kind = $report_kind AND level = $level
   AND report_start_day BETWEEN $start_day AND $end_day AND cleared_at IS NULL;
