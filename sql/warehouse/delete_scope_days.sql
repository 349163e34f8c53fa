-- A landing's delete from {table}: its scope's days between $start_day and $end_day (a billing
-- month fetched again), so the rows landed next are the newest fetch and a re-run changes nothing.
DELETE FROM {table}
 WHERE scope = $scope AND scope_name = $scope_name AND day BETWEEN $start_day AND $end_day;
