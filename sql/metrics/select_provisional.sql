-- The days in $first..$last of the scopes asked that were fetched before they were final
-- (still filling in).
SELECT DISTINCT day
FROM metrics_calendar
WHERE NOT is_final AND day BETWEEN $first AND $last
  AND ($scope IS NULL OR scope = $scope) AND ($scope_name IS NULL OR scope_name = $scope_name)
ORDER BY day
