-- Quarantined report lines naming the person ($pattern: Person.text_pattern). raw.quarantine is
-- published whole, so no partition is marked. Each returns the scope day of a user-level line
-- (its own "day" field when readable, else its 1-day report's day, as bi.reconciliation reads
-- it; NULL otherwise): the aggregate report of that day still counts the person.
DELETE FROM raw.quarantine
 WHERE regexp_matches(coalesce(line_text, ''), $pattern)
   AND report_end_day >= $first_day AND report_start_day <= $last_day
RETURNING scope, scope_name,
          CASE WHEN level = 'user'
               THEN coalesce(CASE WHEN json_valid(line_text) THEN TRY_CAST(line_text ->> '$.day' AS DATE) END,
                             CASE WHEN report_start_day = report_end_day THEN report_start_day END) END AS day
