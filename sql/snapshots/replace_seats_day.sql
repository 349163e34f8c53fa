-- Replace one snapshot day of snapshots.seats inside the caller's transaction; the day's rows
-- are registered as snapshot_frame.
DELETE FROM snapshots.seats WHERE snapshot_day = $day;
INSERT INTO snapshots.seats BY NAME SELECT * FROM snapshot_frame;
