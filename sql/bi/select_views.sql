-- The views BI users may read, by name.
SELECT view_name FROM duckdb_views() WHERE schema_name = 'bi' AND NOT internal ORDER BY view_name;
