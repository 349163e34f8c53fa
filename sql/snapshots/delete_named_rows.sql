-- A refresh's repositories out of one snapshot day of {table} (a catalog table whose rows name a
-- repository but hold no id: what the last take could not read of them), inside the caller's
-- transaction, by name ($names: as the deliveries named them, and the subjects of the new
-- warnings). The day's other rows stay.
DELETE FROM {table}
 WHERE snapshot_day = $day AND list_contains(CAST($names AS VARCHAR[]), {name});
