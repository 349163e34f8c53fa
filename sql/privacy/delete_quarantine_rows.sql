-- Quarantined lines by rowid ($rowids): raw.quarantine is published whole, so no partition is marked.
DELETE FROM raw.quarantine
 WHERE list_contains(CAST($rowids AS BIGINT[]), rowid)
RETURNING 1
