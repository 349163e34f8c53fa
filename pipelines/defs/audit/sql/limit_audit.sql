-- The audit scans whole tables: two threads and 512 MB, and past that DuckDB spills to its
-- temporary directory beside the warehouse (<warehouse>.tmp) instead of failing.
SET threads = 2;
SET memory_limit = '512MB';
