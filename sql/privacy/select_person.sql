-- The user id and login of a row naming the person by either (run per table of PERSON_TABLES;
-- only rows whose {where} is $where_value, when one is given).
SELECT "{id}", "{login}"
  FROM {table}
 WHERE ("{id}" = $user_id OR lower("{login}") = $login)
   AND ($where_value IS NULL OR "{where}" = $where_value)
 LIMIT 1
