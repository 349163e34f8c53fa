-- The user id and login of a row naming the person by either (run per table of PERSON_TABLES).
SELECT "{id}", "{login}"
  FROM {table}
 WHERE "{id}" = $user_id OR lower("{login}") = $login
 LIMIT 1
