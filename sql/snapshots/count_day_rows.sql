-- How many rows {table} (a catalog table) holds for one snapshot day.
SELECT count(*) FROM {table} WHERE snapshot_day = $day;
