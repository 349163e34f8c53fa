-- A file fetched again (delete_landed_file.sql) takes its keys' rows out of every table, and with
-- them another file's rows of a key both hold (a line the report repeats across files): that
-- other line is marked, so select_repeated_keys.sql returns it and it is landed again from the
-- archive before the checks, whether or not the file fetched again still holds the key.
UPDATE landed_keys SET orphaned = true
 WHERE _file_index <> $file_index AND NOT rejected
   AND struct_pack(level, day, user_id) IN (
       SELECT struct_pack(level, day, user_id) FROM landed_keys WHERE _file_index = $file_index AND NOT rejected);
