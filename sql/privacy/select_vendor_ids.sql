-- The vendor user ids a vendor table holds beside any of these emails.
SELECT DISTINCT "{vendor_id}"
  FROM {table}
 WHERE list_contains(CAST($emails AS VARCHAR[]), lower("{email}")) AND "{vendor_id}" IS NOT NULL
