DROP TABLE IF EXISTS landed_keys;
