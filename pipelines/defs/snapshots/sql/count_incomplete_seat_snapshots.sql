-- Each snapshot day and organization with a seat total holds exactly total_seats seats: its seat
-- rows and its unassigned seats (no assignee), but the seats of erased people (erased_seats) and
-- the seats no table could hold (left_out_seats: the seats_landed warning says how many), left
-- out: a listing read short (a page lost) or long (a seat counted twice) does not reach BI
-- unnoticed.
SELECT count(*) AS failures,
       string_agg(t.org_login || ' ' || t.snapshot_day || ': ' || coalesce(s.seats, 0) + coalesce(u.seats, 0)
                  || ' seats of ' || t.total_seats, ', ') AS detail
FROM snapshots.seat_totals AS t
LEFT JOIN (SELECT snapshot_day, org_login, count(*) AS seats
           FROM snapshots.seats GROUP BY snapshot_day, org_login) AS s USING (snapshot_day, org_login)
LEFT JOIN (SELECT snapshot_day, scope_name AS org_login, count(*) AS seats
           FROM snapshots.unassigned_seats WHERE scope = 'organization'
           GROUP BY ALL) AS u USING (snapshot_day, org_login)
WHERE coalesce(s.seats, 0) + coalesce(u.seats, 0) + coalesce(t.erased_seats, 0)
      + coalesce(t.left_out_seats, 0) <> t.total_seats;
