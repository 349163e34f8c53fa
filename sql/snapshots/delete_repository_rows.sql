-- A refresh's repositories out of one snapshot day, inside the caller's transaction: by id
-- ($ids, as fetched now: a renamed one too) or by name ($names: as the deliveries named them,
-- so one that answers 404 now loses its rows). The day's other rows stay.
DELETE FROM snapshots.repositories
 WHERE snapshot_day = $day
   AND (list_contains(CAST($ids AS BIGINT[]), repository_id) OR list_contains(CAST($names AS VARCHAR[]), full_name));
DELETE FROM snapshots.repository_stats
 WHERE snapshot_day = $day
   AND (list_contains(CAST($ids AS BIGINT[]), repository_id) OR list_contains(CAST($names AS VARCHAR[]), full_name));
DELETE FROM snapshots.issues
 WHERE snapshot_day = $day
   AND (list_contains(CAST($ids AS BIGINT[]), repository_id)
        OR list_contains(CAST($names AS VARCHAR[]), repository_full_name));
-- What the last take could not read of them ($names also holds the subjects of the new warnings).
DELETE FROM snapshots.warnings
 WHERE snapshot_day = $day AND list_contains(CAST($names AS VARCHAR[]), repository);
