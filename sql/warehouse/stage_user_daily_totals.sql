-- _stage_batch is the Arrow table of one batch, registered by the caller.
INSERT INTO stage_user_daily_totals BY NAME SELECT * REPLACE (CAST(extra AS JSON) AS extra), $file_index AS _file_index FROM _stage_batch;
