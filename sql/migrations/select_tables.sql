-- The tables the warehouse has now, as schema.table.
SELECT schema_name || '.' || table_name FROM duckdb_tables() WHERE database_name = current_database();
