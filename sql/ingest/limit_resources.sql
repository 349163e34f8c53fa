-- Bounded memory and threads for the landing (2-core machine, 400 MB peak RSS target, of
-- which ~130 MB is the imported libraries and ~100 MB one segment's Arrow/Polars frames).
SET threads = 2;
SET memory_limit = '128MB';
SET preserve_insertion_order = true;
