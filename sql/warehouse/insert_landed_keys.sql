-- _land_batch is the Arrow table of one batch, registered by the caller.
INSERT INTO landed_keys SELECT $file_index, day, user_id FROM _land_batch;
