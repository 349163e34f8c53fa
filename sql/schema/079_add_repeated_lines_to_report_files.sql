-- A line repeated within a report (the same JSON value twice under one key) lands once; each
-- file counts the copies it did not land (pipelines/transform/repeats.py). Files landed before
-- counted none.
ALTER TABLE raw.report_files ADD COLUMN repeated_lines BIGINT DEFAULT 0;
