-- Organizations whose seat listing on the newest snapshot day held seats no table could hold:
-- left out alone (snapshots.warnings, endpoint seat_records, says where and which field) and
-- counted in left_out_seats, so the snapshot still lands and publishes. How many and whose
-- listing, never a seat's value or holder.
SELECT count(*) AS failures,
       string_agg(org_login || ' ' || snapshot_day || ': ' || left_out_seats || ' of ' || total_seats
                  || ' seats left out', ', ' ORDER BY org_login) AS detail
FROM snapshots.seat_totals
WHERE left_out_seats > 0
  AND snapshot_day = (SELECT max(snapshot_day) FROM snapshots.seat_totals);
