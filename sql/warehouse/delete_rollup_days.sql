-- Before a rollup is computed again for a scope's days: its rows of those days.
DELETE FROM {table}
 WHERE scope = $scope AND scope_name = $scope_name AND day BETWEEN $start_day AND $end_day;
