-- A vendor table's rows of the person (their emails, in any case, or their vendor user ids) of
-- these days leave it, and the lake partitions they were in are to be written again. Run inside
-- the caller's transaction. {vendor_id} is {email} for a table without a vendor id ($vendor_ids
-- then empty).
INSERT INTO meta.lake_changes (table_name, day)
SELECT DISTINCT '{table}', "{day}"
  FROM {table}
 WHERE (list_contains(CAST($emails AS VARCHAR[]), lower("{email}"))
        OR list_contains(CAST($vendor_ids AS VARCHAR[]), "{vendor_id}"))
   AND "{day}" BETWEEN $first_day AND $last_day;
DELETE FROM {table}
 WHERE (list_contains(CAST($emails AS VARCHAR[]), lower("{email}"))
        OR list_contains(CAST($vendor_ids AS VARCHAR[]), "{vendor_id}"))
   AND "{day}" BETWEEN $first_day AND $last_day
RETURNING 1
