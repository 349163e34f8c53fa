-- The columns of every base table the lake holds, in the warehouse's order, with their types.
SELECT c.schema_name, c.table_name, c.column_name, c.data_type
  FROM duckdb_columns() AS c
  JOIN duckdb_tables() AS t
    ON t.database_name = c.database_name AND t.schema_name = c.schema_name AND t.table_name = c.table_name
 WHERE c.database_name = current_database() AND list_contains(CAST($schemas AS VARCHAR[]), c.schema_name)
 ORDER BY c.schema_name, c.table_name, c.column_index;
