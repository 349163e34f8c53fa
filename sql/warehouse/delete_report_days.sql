-- A landing's first delete from {table}: the report's days in its scope, so the rows landed next
-- are the newest fetch and a re-run changes nothing. Days kept from their 1-day report stay
-- (kept_days, begin_report_landing.sql).
DELETE FROM {table}
 WHERE scope = $scope AND scope_name = $scope_name AND day BETWEEN $start_day AND $end_day
   AND day NOT IN (SELECT day FROM kept_days);
