-- Bytes that committed rows not yet checkpointed hold in memory (pipelines/warehouse/held.py):
-- their row groups and their primary keys' new index entries.
SELECT coalesce(sum(memory_usage_bytes), 0)::BIGINT
FROM duckdb_memory()
WHERE tag IN ('IN_MEMORY_TABLE', 'ART_INDEX');
