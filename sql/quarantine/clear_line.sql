-- A person accepts one open line as the platform serves it; one row back per line cleared.
UPDATE raw.quarantine
   SET cleared_at = now(), cleared_note = $note
 WHERE scope = $scope AND scope_name = $scope_name AND level = $level
   AND report_start_day = $start_day AND report_end_day = $end_day
   AND file_index = $file_index AND line_number = $line_number
   AND cleared_at IS NULL
RETURNING 1;
