-- A landing's first delete from {table}: the report kind's rows of the report's days.
DELETE FROM {table}
 WHERE scope = $scope AND scope_name = $scope_name AND report_kind = $report_kind AND level = $level
   AND day BETWEEN $start_day AND $end_day;
