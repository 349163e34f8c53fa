-- Replace one snapshot day of snapshots.repository_stats inside the caller's transaction; the day's rows
-- are registered as snapshot_frame.
DELETE FROM snapshots.repository_stats WHERE snapshot_day = $day;
INSERT INTO snapshots.repository_stats BY NAME SELECT * FROM snapshot_frame;
