-- Quarantined report lines naming the person by id ($pattern: Person.report_line_pattern): where
-- forget by id learns a login the warehouse never landed.
SELECT line_text
  FROM raw.quarantine
 WHERE regexp_matches(coalesce(line_text, ''), $pattern)
