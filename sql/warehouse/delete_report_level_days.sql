-- delete_report_days.sql for a table holding several levels: the report's own level only.
DELETE FROM {table}
 WHERE level = $level AND scope = $scope AND scope_name = $scope_name AND day BETWEEN $start_day AND $end_day
   AND day NOT IN (SELECT day FROM kept_days);
