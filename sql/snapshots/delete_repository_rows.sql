-- A refresh's repositories out of one snapshot day of {table} (a catalog table whose rows are of
-- one repository), inside the caller's transaction: by id ($ids, as fetched now: a renamed one
-- too) or by name ($names: as the deliveries named them, so one that answers 404 now loses its
-- rows, and the subjects of the new warnings). The day's other rows stay.
DELETE FROM {table}
 WHERE snapshot_day = $day
   AND (list_contains(CAST($ids AS BIGINT[]), {id}) OR list_contains(CAST($names AS VARCHAR[]), {name}));
