-- Replace one snapshot day of snapshots.org_members inside the caller's transaction; the day's rows
-- are registered as snapshot_frame.
DELETE FROM snapshots.org_members WHERE snapshot_day = $day;
INSERT INTO snapshots.org_members BY NAME SELECT * FROM snapshot_frame;
