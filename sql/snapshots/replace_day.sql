-- Replace one snapshot day of {table} (a snapshot table of the catalog) inside the caller's
-- transaction; the day's rows are registered as snapshot_frame.
DELETE FROM {table} WHERE snapshot_day = $day;
INSERT INTO {table} BY NAME SELECT * FROM snapshot_frame;
