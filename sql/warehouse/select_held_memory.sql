-- Bytes that rows committed since this connection's last checkpoint hold in memory
-- (pipelines/warehouse/held.py): their row groups (IN_MEMORY_TABLE) and the index buffers
-- (ART_INDEX), less what those held just after the last checkpoint: the index buffers a
-- landing reads stay loaded after a checkpoint, and counting them again would checkpoint after
-- every landing of a large warehouse.
SELECT greatest(coalesce(sum(memory_usage_bytes), 0) - coalesce(getvariable('held_after_checkpoint'), 0), 0)::BIGINT
FROM duckdb_memory()
WHERE tag IN ('IN_MEMORY_TABLE', 'ART_INDEX');
