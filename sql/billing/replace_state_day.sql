-- Replace one snapshot day of {table} (a billing state table of the catalog) for the owners
-- fetched ({owner}: an enterprise or an organization), inside the caller's transaction; the
-- day's rows are registered as state_frame. An owner not fetched (its billing refused) keeps
-- whatever the day held of it.
DELETE FROM {table} WHERE snapshot_day = $day AND list_contains(CAST($owners AS VARCHAR[]), "{owner}");
INSERT INTO {table} BY NAME SELECT * FROM state_frame;
