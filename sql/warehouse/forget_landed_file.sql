DELETE FROM landed_keys WHERE _file_index = $file_index;
