-- Bounded memory and threads for the landing (2-core machine, 400 MB peak RSS target, of
-- which ~140 MB is the imported libraries, ~75 MB DuckDB's connection and schema, and ~150 MB
-- the segments in flight in the three stages). Measured on the 500,000 user-day benchmark: one
-- thread inserts faster than two (2.4 s against 2.95 s of CPU; the other core is parsing);
-- 128 MB gave 430 MB for 0.3 s less than 64 MB. 48 MB held the stages near 390 MB where 64 MB
-- gives 400-410, but a week's backfill of a 10,000-user organization and its 15,000-user
-- enterprise ran out of it (benchmarks/history.py; docs/benchmarks.md): 64 MB.
SET threads = 1;
SET memory_limit = '64MB';
SET preserve_insertion_order = true;
-- One checkpoint per run, when the connection closes, not one per report: each checkpoint
-- writes the metadata of every changed table, a cost that grows with the warehouse (measured
-- at 180 days x 25,000 users: about 1 s each, four a day). The WAL holds a day's reports.
SET checkpoint_threshold = '1GB';
