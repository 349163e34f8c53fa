-- Inside a writer's transaction: the lake partitions of $tables for every day from $start_day
-- to $end_day are to be written again by the next publish.
INSERT INTO meta.lake_changes (table_name, day)
SELECT t.table_name, CAST(d.day AS DATE)
  FROM unnest(CAST($tables AS VARCHAR[])) AS t(table_name),
       range(CAST($start_day AS TIMESTAMP), CAST($end_day AS TIMESTAMP) + INTERVAL 1 DAY, INTERVAL 1 DAY) AS d(day);
