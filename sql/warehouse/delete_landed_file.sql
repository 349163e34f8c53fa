-- Take one file's rows back out of the open transaction (the file is being fetched again):
-- the report's older rows were deleted when the transaction began, so by (day, user) within
-- the report's scope and level these rows can only be the ones this file landed.
DELETE FROM core.daily_totals AS t USING landed_keys AS k
 WHERE $level = 'aggregate' AND t.scope = $scope AND t.scope_name = $scope_name
   AND k._file_index = $file_index AND t.day = k.day;
DELETE FROM core.user_daily_totals AS t USING landed_keys AS k
 WHERE $level = 'user' AND t.scope = $scope AND t.scope_name = $scope_name
   AND k._file_index = $file_index AND t.day = k.day AND t.user_id = k.user_id;
DELETE FROM core.breakdowns AS t USING landed_keys AS k
 WHERE t.level = $level AND t.scope = $scope AND t.scope_name = $scope_name
   AND k._file_index = $file_index AND t.day = k.day AND t.user_id IS NOT DISTINCT FROM k.user_id;
DELETE FROM core.agent_activity AS t USING landed_keys AS k
 WHERE t.level = $level AND t.scope = $scope AND t.scope_name = $scope_name
   AND k._file_index = $file_index AND t.day = k.day AND t.user_id IS NOT DISTINCT FROM k.user_id;
DELETE FROM landed_keys WHERE _file_index = $file_index;
