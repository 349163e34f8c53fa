-- _stage_batch is the Arrow table of one batch, registered by the caller.
INSERT INTO stage_quarantine BY NAME SELECT *, $file_index AS _file_index FROM _stage_batch;
