-- One snapshot day of snapshots.warnings; runs inside the caller's transaction.
DELETE FROM snapshots.warnings WHERE snapshot_day = ?;
