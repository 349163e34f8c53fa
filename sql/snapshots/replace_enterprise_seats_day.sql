-- Replace one snapshot day of snapshots.enterprise_seats inside the caller's transaction; the
-- day's rows are registered as snapshot_frame.
DELETE FROM snapshots.enterprise_seats WHERE snapshot_day = $day;
INSERT INTO snapshots.enterprise_seats BY NAME SELECT * FROM snapshot_frame;
