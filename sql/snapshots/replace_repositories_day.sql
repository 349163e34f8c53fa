-- Replace one snapshot day of snapshots.repositories inside the caller's transaction; the day's rows
-- are registered as snapshot_frame.
DELETE FROM snapshots.repositories WHERE snapshot_day = $day;
INSERT INTO snapshots.repositories BY NAME SELECT * FROM snapshot_frame;
