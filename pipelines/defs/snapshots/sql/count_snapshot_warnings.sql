-- Repositories skipped (404, 403) on the newest snapshot day, with status and message (an
-- organization's refused seats are the seats_visible check's).
SELECT count(*) AS failures,
       string_agg(repository || ' ' || endpoint || ' ' || status || ': ' || message, ' | ') AS detail
FROM snapshots.warnings
WHERE endpoint <> 'seats'
  AND snapshot_day = (SELECT max(snapshot_day) FROM snapshots.warnings);
