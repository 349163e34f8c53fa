-- _land_batch is the Arrow table of one batch, registered by the caller.
INSERT INTO raw.report_files BY NAME SELECT * FROM _land_batch;
