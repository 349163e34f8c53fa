-- Quarantined lines of usage report exports (CSV: date, username, …) naming the person by their
-- username ($pattern). raw.quarantine is published whole, so no partition is marked; the bill's
-- lines are no usage report's records, so no day of core.erased_user_days comes of them.
DELETE FROM raw.quarantine
 WHERE report_kind = $report_kind AND regexp_matches(coalesce(line_text, ''), $pattern)
   AND report_end_day >= $first_day AND report_start_day <= $last_day
RETURNING 1
