-- The rows of one key: one, or two when a cleared line's place now holds another bad line.
SELECT scope, scope_name, report_kind, level, report_start_day, report_end_day, file_index, line_number,
       reason, line_text, archive_path, link, fetched_at, cleared_at, cleared_note
  FROM quarantine_review
 WHERE scope = $scope AND scope_name = $scope_name AND level = $level
   AND report_start_day = $start_day AND report_end_day = $end_day
   AND file_index = $file_index AND line_number = $line_number
 ORDER BY cleared_at NULLS FIRST;
