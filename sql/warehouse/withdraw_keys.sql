-- Take the rows of some keys back out of {table} in the open transaction: _land_batch holds
-- the keys (level, day, user_id) two lines of the report landed; {keys} is the table's grain
-- among them. As delete_landed_file.sql: the report's older rows went when the transaction
-- began, so these can only be this report's; a NULL user_id matches its NULL key.
DELETE FROM {table}
 WHERE scope = $scope AND scope_name = $scope_name
   AND struct_pack({keys}) IN (SELECT struct_pack({keys}) FROM _land_batch);
