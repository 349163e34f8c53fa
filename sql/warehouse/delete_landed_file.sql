-- Take one file's rows back out of {table} in the open transaction (the file is being fetched
-- again): the report's older rows were deleted when the transaction began, so by the keys the
-- file landed ({keys}: the table's grain among level, day and user_id) within the report's
-- scope these rows can only be the ones this file landed. A NULL user_id (aggregate rows)
-- matches its NULL key: structs compare NULLs as equal.
DELETE FROM {table}
 WHERE scope = $scope AND scope_name = $scope_name
   AND struct_pack({keys}) IN (SELECT struct_pack({keys}) FROM landed_keys WHERE _file_index = $file_index AND NOT rejected);
