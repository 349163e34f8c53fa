-- One snapshot day of snapshots.issues; runs inside the caller's transaction.
DELETE FROM snapshots.issues WHERE snapshot_day = ?;
