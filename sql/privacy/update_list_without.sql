-- A list column of logins written again without the person's login (in any case) on the rows
-- $rowids, the others of the list kept in their order, inside the caller's transaction.
UPDATE {table}
   SET "{column}" = list_filter("{column}", lambda x: lower(x) IS DISTINCT FROM $login)
 WHERE list_contains(CAST($rowids AS BIGINT[]), rowid)
RETURNING 1
