-- The lake partitions of rows whose text is about to be written again (update_texts.sql).
INSERT INTO meta.lake_changes (table_name, day)
SELECT DISTINCT '{table}', "{day}"
  FROM {table}
 WHERE list_contains(CAST($rowids AS BIGINT[]), rowid)
