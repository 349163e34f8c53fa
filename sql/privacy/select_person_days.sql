-- The scope days a table holds the person's rows on: what is derived from those days (agent and
-- team days, rollups) is computed again once they left.
SELECT DISTINCT scope, scope_name, "{day}"
  FROM {table}
 WHERE ("{id}" = $user_id OR lower("{login}") = $login) AND ($where_value IS NULL OR "{where}" = $where_value)
   AND "{day}" BETWEEN $first_day AND $last_day
