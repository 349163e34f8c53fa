-- Quarantined lines of the vendors' files naming the person ($pattern: erasure_vendors.py's, on
-- their email or vendor user id). raw.quarantine is published whole: no partition to mark.
DELETE FROM raw.quarantine
 WHERE level = $level AND regexp_matches(coalesce(line_text, ''), $pattern)
   AND report_end_day >= $first_day AND report_start_day <= $last_day
RETURNING 1
