-- Every base table of the warehouse (the migrations' bookkeeping aside), for the run summary.
SELECT schema_name, table_name
FROM duckdb_tables()
WHERE database_name = current_database() AND schema_name <> 'meta'
ORDER BY 1, 2;
