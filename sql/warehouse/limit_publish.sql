-- Publishing copies table by table; 256 MB holds its buffers (past it DuckDB spills to
-- <warehouse>.tmp instead of failing), so a big warehouse never takes a big process.
SET memory_limit = '256MB';
