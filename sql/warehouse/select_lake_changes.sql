SELECT DISTINCT table_name, day FROM meta.lake_changes;
