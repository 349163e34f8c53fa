DELETE FROM meta.lake_changes;
