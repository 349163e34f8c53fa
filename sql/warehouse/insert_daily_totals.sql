-- _land_batch is the Arrow table of one batch, registered by the caller.
INSERT INTO core.daily_totals BY NAME SELECT * REPLACE (CAST(extra AS JSON) AS extra) FROM _land_batch;
