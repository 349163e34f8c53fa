-- _land_batch is the Arrow table of one batch of {table}'s rows, registered by the caller. A row
-- of a grain already there replaces it (a fetch landed twice in the same second, the service's
-- Date header having whole seconds, is one fetch).
INSERT OR REPLACE INTO {table} BY NAME SELECT * FROM _land_batch;
