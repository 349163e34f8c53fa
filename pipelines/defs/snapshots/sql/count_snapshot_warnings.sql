-- Repositories skipped (404, 403) on the newest snapshot day, with status and message (an
-- organization's or enterprise's refused seats, and its seats that could not land, are the
-- seats_visible and seats_landed checks').
SELECT count(*) AS failures,
       string_agg(repository || ' ' || endpoint || ' ' || status || ': ' || message, ' | ') AS detail
FROM snapshots.warnings
WHERE endpoint NOT IN ('seats', 'enterprise_seats', 'seat_records', 'enterprise_seat_records')
  AND snapshot_day = (SELECT max(snapshot_day) FROM snapshots.warnings);
