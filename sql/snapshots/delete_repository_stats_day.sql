-- One snapshot day of snapshots.repository_stats; runs inside the caller's transaction.
DELETE FROM snapshots.repository_stats WHERE snapshot_day = ?;
