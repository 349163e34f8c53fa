-- Bounded memory and threads for the parse (2-core machine, 400 MB RSS target); insertion
-- order is kept so row order maps back to line numbers.
SET threads = 2;
SET memory_limit = '192MB';
SET preserve_insertion_order = true;
