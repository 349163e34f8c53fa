-- Replace the snapshot day's seat listings in raw.report_files (their archived files) inside the
-- caller's transaction; the day's rows are registered as snapshot_frame.
DELETE FROM raw.report_files WHERE level = $level AND report_kind = $kind AND report_start_day = $day;
INSERT INTO raw.report_files BY NAME SELECT * FROM snapshot_frame;
