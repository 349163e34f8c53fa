-- _land_batch is the report's drift, one row per day, path and drift (pipelines.ingest.drift).
INSERT INTO raw.field_drift BY NAME SELECT * FROM _land_batch;
