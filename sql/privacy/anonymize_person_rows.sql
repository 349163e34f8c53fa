-- Rows kept without the person (an issue stays, its author goes), and their lake partitions
-- marked to be written again. Run inside the caller's transaction.
INSERT INTO meta.lake_changes (table_name, day)
SELECT DISTINCT '{table}', "{day}"
  FROM {table}
 WHERE ("{id}" = $user_id OR lower("{login}") = $login) AND "{day}" BETWEEN $first_day AND $last_day;
UPDATE {table} SET "{id}" = NULL, "{login}" = NULL
 WHERE ("{id}" = $user_id OR lower("{login}") = $login) AND "{day}" BETWEEN $first_day AND $last_day
RETURNING 1
