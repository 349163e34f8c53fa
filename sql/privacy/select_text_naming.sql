-- Rows of a free-text column (the catalog's Table.text) holding the person's login anywhere: the
-- candidates pipelines/warehouse/people.py replaces whole logins in.
SELECT rowid, "{column}"
  FROM {table}
 WHERE contains(lower("{column}"), $login)
