-- A person accepts every open line that select_lines.sql lists for the same selection; one row
-- back per line cleared.
UPDATE raw.quarantine
   SET cleared_at = now(), cleared_note = $note
 WHERE ($first_day IS NULL OR report_end_day >= $first_day)
   AND ($last_day IS NULL OR report_start_day <= $last_day)
   AND ($scope_name IS NULL OR lower(scope_name) = lower($scope_name))
   AND cleared_at IS NULL
RETURNING 1;
