-- One snapshot day of snapshots.org_members; runs inside the caller's transaction.
DELETE FROM snapshots.org_members WHERE snapshot_day = ?;
