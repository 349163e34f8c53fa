-- The page's seats section (extension: seats): each organization's newest snapshot day, summed
-- over plan types and assignment groups (every seat is in exactly one group).
WITH newest AS (SELECT org_login, max(snapshot_day) AS snapshot_day FROM bi.seat_utilization GROUP BY org_login)
SELECT u.org_login, u.snapshot_day, sum(u.seats), sum(u.active_7d), sum(u.active_30d), sum(u.inactive_30d),
       sum(u.never_active), sum(u.pending_cancellation)
FROM bi.seat_utilization AS u
JOIN newest USING (org_login, snapshot_day)
GROUP BY ALL
ORDER BY u.org_login;
