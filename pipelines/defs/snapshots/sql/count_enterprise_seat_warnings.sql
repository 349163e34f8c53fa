-- Enterprises whose seats answered 403 (no billing permission) or 404 (the product is not
-- enabled) on the newest snapshot day (every day lists members): their seats are missing from
-- that day, not zero.
SELECT count(*) AS failures,
       string_agg(repository || ' ' || status || ': ' || message, ' | ') AS detail
FROM snapshots.warnings
WHERE endpoint = 'enterprise_seats'
  AND snapshot_day = (SELECT max(snapshot_day) FROM snapshots.org_members);
