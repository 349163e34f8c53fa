-- Quarantined lines of the reports that cover any day of [$first_day, $last_day] (a NULL end
-- is open), of one scope name or all, open ones only unless $include_cleared. Newest reports
-- first, then in file and line order.
SELECT scope, scope_name, report_kind, level, report_start_day, report_end_day, file_index, line_number,
       reason, line_text, archive_path, link, fetched_at, cleared_at, cleared_note
  FROM quarantine_review
 WHERE ($first_day IS NULL OR report_end_day >= $first_day)
   AND ($last_day IS NULL OR report_start_day <= $last_day)
   AND ($scope_name IS NULL OR lower(scope_name) = lower($scope_name))
   AND ($include_cleared OR cleared_at IS NULL)
 ORDER BY report_end_day DESC, report_start_day DESC, scope, scope_name, level, file_index, line_number, cleared_at NULLS FIRST;
