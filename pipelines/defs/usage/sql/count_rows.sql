-- Rows of one usage table ({schema}.{table}, from USAGE_TABLES), for its materialization.
SELECT count(*) FROM "{schema}"."{table}";
