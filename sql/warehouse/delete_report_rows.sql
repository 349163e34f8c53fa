-- A landing's first delete from {table}: the rows of the same report (scope, kind, level, days).
DELETE FROM {table}
 WHERE scope = $scope AND scope_name = $scope_name AND report_kind = $report_kind AND level = $level
   AND report_start_day = $start_day AND report_end_day = $end_day;
