-- The connection's settings as they were before the landing (sql/ingest/select_resources.sql).
SET threads = $threads;
SET memory_limit = $memory_limit;
SET preserve_insertion_order = $preserve_insertion_order;
SET checkpoint_threshold = $checkpoint_threshold;
