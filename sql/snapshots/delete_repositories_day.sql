-- One snapshot day of snapshots.repositories; runs inside the caller's transaction.
DELETE FROM snapshots.repositories WHERE snapshot_day = ?;
