-- The archive files of a snapshot day's seat listings (raw.report_files).
SELECT archive_path FROM raw.report_files
 WHERE level = $level AND report_kind = $kind AND report_start_day = $day
 ORDER BY archive_path;
