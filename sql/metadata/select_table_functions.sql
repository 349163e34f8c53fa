-- Every table function's name, lower case: `metrics-etl sql` refuses a PIVOT without IN that
-- names one that does not read (pipelines/cli/_statements.py).
SELECT DISTINCT lower(function_name) FROM duckdb_functions() WHERE function_type = 'table'
