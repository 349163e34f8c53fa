-- Every archive file a raw.report_files row names (report files and seat listings): the files
-- the warehouse keeps; any other archive file in a report's directory is superseded or never
-- landed (pipelines/ingest/archive_files.py).
SELECT archive_path FROM raw.report_files
