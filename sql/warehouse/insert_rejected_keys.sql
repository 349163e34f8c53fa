-- The keys (day, user_id) of the records of a batch that a rule of the data refused, under their
-- file and line: such a line is still a line of its key, so select_repeated_keys.sql finds a key
-- whose other line landed (pipelines/ingest/_repeats.py quarantines that one too). Nothing of
-- the refused line landed, so no file's rows are taken out by these keys (delete_landed_file.sql).
INSERT INTO landed_keys BY NAME
SELECT $file_index AS _file_index, $level AS level, _line AS line_number, day, user_id, true AS rejected
  FROM _land_batch WHERE day NOT IN (SELECT day FROM kept_days);
