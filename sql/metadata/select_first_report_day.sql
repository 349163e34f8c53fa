-- The earliest day a daily report landed for: where `make dev`'s partitions start, so Dagster's
-- UI shows every day the home holds.
SELECT min(report_start_day) FROM raw.report_files WHERE report_kind = '1-day';
