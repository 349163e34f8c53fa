-- The user id and login of the person a table of the service's people shows with this email.
SELECT "{id}", "{login}"
  FROM {table}
 WHERE lower("{email}") = $email AND ("{id}" IS NOT NULL OR "{login}" IS NOT NULL)
 LIMIT 1
