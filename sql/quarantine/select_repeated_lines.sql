-- Lines that repeated an earlier line of their key, landed once (raw.report_files.repeated_lines,
-- migration 079), per report of the selection as `quarantine list` selects its lines.
SELECT scope, scope_name, level, report_start_day, report_end_day, sum(repeated_lines) AS repeated
  FROM raw.report_files
 WHERE repeated_lines > 0
   AND ($first_day IS NULL OR report_end_day >= $first_day)
   AND ($last_day IS NULL OR report_start_day <= $last_day)
   AND ($scope_name IS NULL OR lower(scope_name) = lower($scope_name))
 GROUP BY ALL
 ORDER BY report_end_day DESC, report_start_day DESC, scope, scope_name, level;
