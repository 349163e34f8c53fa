-- A free-text column's rows written again with the person's login replaced ($texts[i] for the
-- row $rowids[i]), inside the caller's transaction.
UPDATE {table}
   SET "{column}" = t.text
  FROM (SELECT unnest(CAST($rowids AS BIGINT[])) AS id, unnest(CAST($texts AS VARCHAR[])) AS text) AS t
 WHERE {table}.rowid = t.id
RETURNING 1
