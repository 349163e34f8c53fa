-- Every person a table names on these days: ingest tests each against the erased people's hashes.
SELECT DISTINCT "{id}", "{login}"
  FROM {table}
 WHERE "{day}" BETWEEN $first_day AND $last_day
   AND ("{id}" IS NOT NULL OR "{login}" IS NOT NULL)
   AND ($where_value IS NULL OR "{where}" = $where_value)
