-- The loader's bound (pipelines/webhooks/load.py, LOAD_MEMORY_LIMIT; docs/webhooks.md, "Loader
-- memory"): a batch of any shape, and a webhook-shaped delivery at the receiver's body limit,
-- fit under it.
SET memory_limit = $memory_limit;
