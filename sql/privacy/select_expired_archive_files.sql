-- Retention of the raw archive: the files of reports whose last day expired since the last
-- retention, or fetched since it with days already expired.
SELECT DISTINCT archive_path
  FROM raw.report_files
 WHERE report_end_day < $cutoff AND (report_end_day >= $since OR fetched_at >= $applied_at)
 ORDER BY archive_path
