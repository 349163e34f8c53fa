-- The lines one fetch of these days set aside: those naming an erased person go before it commits.
SELECT rowid, line_text
  FROM raw.quarantine
 WHERE fetched_at = $fetched_at
   AND report_end_day >= $first_day AND report_start_day <= $last_day
