-- The person's rows of these days leave the table, and the lake partitions they were in are
-- to be written again by the next publish. Run inside the caller's transaction.
INSERT INTO meta.lake_changes (table_name, day)
SELECT DISTINCT '{table}', "{day}"
  FROM {table}
 WHERE ("{id}" = $user_id OR lower("{login}") = $login) AND "{day}" BETWEEN $first_day AND $last_day;
DELETE FROM {table}
 WHERE ("{id}" = $user_id OR lower("{login}") = $login) AND "{day}" BETWEEN $first_day AND $last_day
RETURNING 1
