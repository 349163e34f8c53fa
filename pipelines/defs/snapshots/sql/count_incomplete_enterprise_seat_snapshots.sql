-- Each snapshot day and enterprise with a seat total holds exactly total_seats distinct seat
-- holders, each unassigned seat (no assignee) counted as one, but the erased people left out
-- (erased_holders): the listing has a seat per grant, but its total counts each user once. The
-- holders of seats no table could hold (left_out_holders, the enterprise_seats_landed warning)
-- are at most that many: a left-out seat whose assignee has no readable id may be of a holder
-- already counted, so the total may lie anywhere between. A listing read short (a page lost) or
-- a holder invented does not reach BI unnoticed.
SELECT count(*) AS failures,
       string_agg(t.enterprise || ' ' || t.snapshot_day || ': ' || coalesce(s.holders, 0) + coalesce(u.seats, 0)
                  || ' seat holders of ' || t.total_seats, ', ') AS detail
FROM snapshots.enterprise_seat_totals AS t
LEFT JOIN (SELECT snapshot_day, enterprise, count(DISTINCT user_id) AS holders
           FROM snapshots.enterprise_seats GROUP BY snapshot_day, enterprise) AS s USING (snapshot_day, enterprise)
LEFT JOIN (SELECT snapshot_day, scope_name AS enterprise, count(*) AS seats
           FROM snapshots.unassigned_seats WHERE scope = 'enterprise'
           GROUP BY ALL) AS u USING (snapshot_day, enterprise)
WHERE t.total_seats NOT BETWEEN coalesce(s.holders, 0) + coalesce(u.seats, 0) + coalesce(t.erased_holders, 0)
                            AND coalesce(s.holders, 0) + coalesce(u.seats, 0) + coalesce(t.erased_holders, 0)
                                + coalesce(t.left_out_holders, 0);
