-- Write what committed rows hold in memory to the file (pipelines/warehouse/held.py), and keep
-- what stays loaded after it (index buffers read, not written) as the floor the next count starts from.
CHECKPOINT;
SET VARIABLE held_after_checkpoint = (
    SELECT coalesce(sum(memory_usage_bytes), 0)::BIGINT FROM duckdb_memory() WHERE tag IN ('IN_MEMORY_TABLE', 'ART_INDEX')
);
