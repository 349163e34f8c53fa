-- Where a view or table a query named but the serving database has not is: the same name in a
-- schema (a query without `bi.`), else the names a typo or two away, bi's first.
WITH named AS (
    SELECT schema_name, view_name AS name FROM duckdb_views()
    WHERE database_name = current_database() AND NOT internal
    UNION ALL
    SELECT schema_name, table_name FROM duckdb_tables()
    WHERE database_name = current_database() AND NOT internal
), near AS (
    SELECT schema_name, name, levenshtein(lower(name), lower($name)) AS distance FROM named
)
SELECT schema_name || '.' || name
FROM near
WHERE distance <= 2
QUALIFY rank() OVER (ORDER BY distance) = 1
ORDER BY schema_name <> 'bi', schema_name, name;
