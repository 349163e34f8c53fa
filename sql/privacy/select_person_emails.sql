-- The emails a table of the service's people shows for the person (a seat's assignee email):
-- their rows in the vendors' tables are theirs too.
SELECT DISTINCT lower("{email}")
  FROM {table}
 WHERE ("{id}" = $user_id OR lower("{login}") = $login) AND "{email}" IS NOT NULL
