-- Replace one snapshot day of snapshots.unassigned_seats inside the caller's transaction; the
-- day's rows are registered as snapshot_frame.
DELETE FROM snapshots.unassigned_seats WHERE snapshot_day = $day;
INSERT INTO snapshots.unassigned_seats BY NAME SELECT * FROM snapshot_frame;
