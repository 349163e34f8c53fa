-- delete_report_rows.sql, but the rows a person cleared stay: keep_cleared_quarantine.sql, at
-- the end of the landing, keeps them cleared if served again.
DELETE FROM {table}
 WHERE scope = $scope AND scope_name = $scope_name AND report_kind = $report_kind AND level = $level
   AND report_start_day = $start_day AND report_end_day = $end_day AND cleared_at IS NULL;
