-- The archived report files that can name a person (every level but the aggregate one) over
-- these days; only those of one fetch when $fetched_at is given.
SELECT DISTINCT archive_path, sha256
  FROM raw.report_files
 WHERE level <> 'aggregate'
   AND report_end_day >= $first_day AND report_start_day <= $last_day
   AND ($fetched_at IS NULL OR list_contains(CAST($fetched_at AS TIMESTAMPTZ[]), fetched_at))
 ORDER BY archive_path
