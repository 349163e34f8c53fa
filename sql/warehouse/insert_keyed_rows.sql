-- insert_day_rows.sql, and the keys the batch landed are recorded under its file and line
-- (landed_keys, begin_report_landing.sql): a user's (day, user_id), an aggregate's day. The
-- batch's `_line` (each row's line in its file) goes to landed_keys only.
INSERT INTO {table} BY NAME SELECT * EXCLUDE (_line) FROM _land_batch WHERE day NOT IN (SELECT day FROM kept_days);
INSERT INTO landed_keys BY NAME
SELECT $file_index AS _file_index, $level AS level, _line AS line_number, COLUMNS(lambda c: c IN ('day', 'user_id'))
  FROM _land_batch WHERE day NOT IN (SELECT day FROM kept_days);
