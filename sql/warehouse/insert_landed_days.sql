-- _land_batch is the Arrow table of one aggregate batch (no user), registered by the caller.
INSERT INTO landed_keys SELECT $file_index, day, NULL FROM _land_batch;
