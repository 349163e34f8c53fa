-- Replace one snapshot day of snapshots.warnings inside the caller's transaction; the day's rows
-- are registered as snapshot_frame.
DELETE FROM snapshots.warnings WHERE snapshot_day = $day;
INSERT INTO snapshots.warnings BY NAME SELECT * FROM snapshot_frame;
