-- `SHOW TABLES` in `metrics-etl sql`: DuckDB's lists the default schema, which the serving
-- database leaves empty. Here every view and table, by the name a query gives it (bi's first:
-- the answers), with what it holds.
SELECT schema_name || '.' || name AS name, what
FROM (
    SELECT database_name, schema_name, view_name AS name, comment AS what, internal
    FROM duckdb_views()
    UNION ALL
    SELECT database_name, schema_name, table_name, comment, internal
    FROM duckdb_tables()
)
WHERE database_name = current_database() AND NOT internal
ORDER BY schema_name <> 'bi', schema_name, name;
