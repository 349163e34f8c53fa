-- The person's rows of these days leave the table, and the lake partitions they were in are
-- to be written again by the next publish. Run inside the caller's transaction. Only the rows
-- whose {where} is $where_value name a person, when one is given (a cost center's User resources).
INSERT INTO meta.lake_changes (table_name, day)
SELECT DISTINCT '{table}', "{day}"
  FROM {table}
 WHERE ("{id}" = $user_id OR lower("{login}") = $login) AND ($where_value IS NULL OR "{where}" = $where_value)
   AND "{day}" BETWEEN $first_day AND $last_day;
DELETE FROM {table}
 WHERE ("{id}" = $user_id OR lower("{login}") = $login) AND ($where_value IS NULL OR "{where}" = $where_value)
   AND "{day}" BETWEEN $first_day AND $last_day
RETURNING 1
