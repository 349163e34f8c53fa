-- Records of one file whose (day, user) another file also holds: taking them back out by key
-- would take the other file's rows too.
SELECT count(*)
  FROM landed_keys AS mine
  JOIN landed_keys AS other
    ON other.day = mine.day AND other.user_id IS NOT DISTINCT FROM mine.user_id AND other._file_index <> mine._file_index
   AND NOT other.rejected
 WHERE mine._file_index = $file_index AND NOT mine.rejected;
