-- Quarantined report lines naming the person ($pattern: Person.text_pattern). raw.quarantine is
-- published whole, so no partition is marked.
DELETE FROM raw.quarantine
 WHERE regexp_matches(coalesce(line_text, ''), $pattern)
   AND report_end_day >= $first_day AND report_start_day <= $last_day
RETURNING 1
