-- What the lake's writers marked changed since the last publish that a day's chargeback reads:
-- the days of $tables, and whether every table is to be written again ('*', after a migration).
SELECT DISTINCT table_name = '*' AS everything, day
FROM meta.lake_changes
WHERE table_name = '*' OR list_contains(CAST($tables AS VARCHAR[]), table_name);
