-- Bounded memory and threads for the landing (2-core machine, 400 MB peak RSS target, of
-- which ~140 MB is the imported libraries, ~75 MB DuckDB's connection and schema, and ~150 MB
-- the segments in flight in the three stages). Measured on the 500,000 user-day benchmark: one
-- thread inserts faster than two (2.4 s against 2.95 s of CPU; the other core is parsing);
-- 128 MB gave 430 MB for 0.3 s less than 64 MB; 48 MB holds the stages near 390 MB where 64 MB
-- gives 400-410. What earlier commits left in memory counts against it: a landing's commit
-- checkpoints when they hold more than half of it (pipelines/warehouse/held.py).
SET threads = 1;
SET memory_limit = '48MB';
SET preserve_insertion_order = true;
-- No checkpoint per report: each checkpoint writes the metadata of every changed table, a cost
-- that grows with the warehouse (measured at 180 days x 25,000 users: about 1 s each, four a
-- day). One is taken when the connection closes, or when committed rows hold more memory than
-- the landing can spare (pipelines/warehouse/held.py).
SET checkpoint_threshold = '1GB';
