-- _land_batch is the Arrow table of one batch of {table}'s rows, registered by the caller.
INSERT INTO {table} BY NAME SELECT * FROM _land_batch;
