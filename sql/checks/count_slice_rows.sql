-- The rows of core.{table} in a check's slice: how many passes the grain check takes
-- (pipelines/warehouse/checks.py). A template, filled as count_duplicate_rows.sql is.
SELECT count(*) FROM core.{table}
WHERE day BETWEEN $start_day AND $end_day AND ($scope IS NULL OR ({slice}));
