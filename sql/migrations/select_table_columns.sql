-- The columns a table has now.
SELECT column_name FROM duckdb_columns()
 WHERE database_name = current_database() AND schema_name = $schema AND table_name = $table;
