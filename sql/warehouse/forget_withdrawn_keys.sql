-- The withdrawn keys (withdraw_keys.sql) leave landed_keys too: a line landed again records its own.
DELETE FROM landed_keys
 WHERE struct_pack(level, day, user_id) IN (SELECT struct_pack(level, day, user_id) FROM _land_batch);
