-- Bounded memory and threads for the landing (2-core machine, 400 MB peak RSS target, of
-- which ~150 MB is the imported libraries and ~150 MB the segments in flight in the three
-- stages). Measured on the 500,000 user-day benchmark: one thread inserts faster than two
-- (2.4 s against 2.95 s of CPU; the other core is parsing), and 64 MB holds peak RSS near
-- 380 MB where 128 MB gave 430 MB for 0.3 s less.
SET threads = 1;
SET memory_limit = '64MB';
SET preserve_insertion_order = true;
-- One checkpoint per run, when the connection closes, not one per report: each checkpoint
-- writes the metadata of every changed table, a cost that grows with the warehouse (measured
-- at 180 days x 25,000 users: about 1 s each, four a day). The WAL holds a day's reports.
SET checkpoint_threshold = '1GB';
