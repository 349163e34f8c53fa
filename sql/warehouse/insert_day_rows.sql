-- _land_batch is the Arrow table of one batch of {table}'s rows, registered by the caller.
-- Days kept from their 1-day report (kept_days, begin_report_landing.sql) are not written.
INSERT INTO {table} BY NAME SELECT * FROM _land_batch WHERE day NOT IN (SELECT day FROM kept_days);
