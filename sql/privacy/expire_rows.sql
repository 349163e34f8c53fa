-- Retention: a table's rows of the days that expired since it was last applied ($since to the
-- day before $cutoff), and of older days landed since (a backfill marks them in
-- meta.lake_changes), leave it; their lake partitions are marked to be written again.
INSERT INTO meta.lake_changes (table_name, day)
SELECT DISTINCT '{table}', "{day}"
  FROM {table}
 WHERE "{day}" < $cutoff
   AND ("{day}" >= $since OR "{day}" IN (SELECT day FROM meta.lake_changes WHERE table_name = '{table}'));
DELETE FROM {table}
 WHERE "{day}" < $cutoff
   AND ("{day}" >= $since OR "{day}" IN (SELECT day FROM meta.lake_changes WHERE table_name = '{table}'))
RETURNING 1
