-- Rows of one snapshot day into {table} (a catalog table), inside the caller's transaction; the
-- rows are registered as snapshot_frame.
INSERT INTO {table} BY NAME SELECT * FROM snapshot_frame;
