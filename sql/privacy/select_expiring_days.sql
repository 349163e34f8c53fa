-- The scope days retention removes a table's rows of (as expire_rows.sql chooses them): what is
-- derived from those days (agent and team days, rollups) is computed again once they left.
SELECT DISTINCT scope, scope_name, "{day}"
  FROM {table}
 WHERE "{day}" < $cutoff
   AND ("{day}" >= $since OR "{day}" IN (SELECT day FROM meta.lake_changes WHERE table_name = '{table}'))
