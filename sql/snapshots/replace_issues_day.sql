-- Replace one snapshot day of snapshots.issues inside the caller's transaction; the day's rows
-- are registered as snapshot_frame.
DELETE FROM snapshots.issues WHERE snapshot_day = $day;
INSERT INTO snapshots.issues BY NAME SELECT * FROM snapshot_frame;
