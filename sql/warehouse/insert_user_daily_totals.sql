-- _land_batch is the Arrow table of one batch, registered by the caller; the keys it landed are
-- recorded under its file (landed_keys, begin_report_landing.sql).
-- Days kept from their 1-day report (kept_days, begin_report_landing.sql) are not written.
INSERT INTO core.user_daily_totals BY NAME SELECT * REPLACE (CAST(extra AS JSON) AS extra) FROM _land_batch
 WHERE day NOT IN (SELECT day FROM kept_days);
INSERT INTO landed_keys SELECT $file_index, day, user_id FROM _land_batch WHERE day NOT IN (SELECT day FROM kept_days);
