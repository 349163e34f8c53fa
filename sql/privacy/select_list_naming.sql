-- Rows of a list column of logins (the catalog's Table.login_lists) naming the person, in any case.
SELECT rowid
  FROM {table}
 WHERE list_contains(list_transform("{column}", lambda x: lower(x)), $login)
