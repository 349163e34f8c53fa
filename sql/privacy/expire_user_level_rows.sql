-- Retention in a table of both levels: its user-level rows only (as expire_rows.sql), the
-- aggregate ones stay.
INSERT INTO meta.lake_changes (table_name, day)
SELECT DISTINCT '{table}', "{day}"
  FROM {table}
 WHERE level = 'user' AND "{day}" < $cutoff
   AND ("{day}" >= $since OR "{day}" IN (SELECT day FROM meta.lake_changes WHERE table_name = '{table}'));
DELETE FROM {table}
 WHERE level = 'user' AND "{day}" < $cutoff
   AND ("{day}" >= $since OR "{day}" IN (SELECT day FROM meta.lake_changes WHERE table_name = '{table}'))
RETURNING 1
