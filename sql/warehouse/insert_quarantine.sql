-- _land_batch is the Arrow table of one batch, registered by the caller.
INSERT INTO raw.quarantine BY NAME SELECT * FROM _land_batch;
