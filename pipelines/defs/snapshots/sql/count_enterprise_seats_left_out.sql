-- Enterprises whose seat listing on the newest snapshot day held seats no table could hold: left
-- out alone (snapshots.warnings, endpoint enterprise_seat_records, says where and which field)
-- and counted in left_out_holders, so the snapshot still lands and publishes. How many and whose
-- listing, never a seat's value or holder.
SELECT count(*) AS failures,
       string_agg(enterprise || ' ' || snapshot_day || ': up to ' || left_out_holders || ' of ' || total_seats
                  || ' seat holders left out', ', ' ORDER BY enterprise) AS detail
FROM snapshots.enterprise_seat_totals
WHERE left_out_holders > 0
  AND snapshot_day = (SELECT max(snapshot_day) FROM snapshots.enterprise_seat_totals);
