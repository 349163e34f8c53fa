-- bi.inactive_seats (extension: docs/extensions.md, "Seats")
-- Grain: one row per org_login and user_id, on the organization's newest snapshot day whose
-- seat listing was read (a day with a snapshots.seat_totals row; a day refused with 403/404 is
-- skipped), for the seats with no activity in the 30 days before that day (as
-- bi.seat_utilization's inactive_30d counts them: never-active seats included).
-- inactive_since: last_activity_at, or the seat's created_at when last_activity_at is NULL.
-- The service keeps activity 90 days, so a NULL also covers activity older than that: for a seat
-- over 90 days old without activity, read days_inactive as "at least 90".
-- days_inactive: whole days from inactive_since's UTC date to the snapshot day.
CREATE OR REPLACE VIEW bi.inactive_seats AS
WITH newest AS (
    SELECT org_login, max(snapshot_day) AS snapshot_day
    FROM snapshots.seat_totals
    GROUP BY org_login
)
SELECT
    s.snapshot_day,
    s.org_login,
    s.user_id,
    s.login,
    s.plan_type,
    s.assigning_team_id,
    s.assigning_team_slug,
    s.created_at,
    s.last_activity_at,
    coalesce(s.last_activity_at, s.created_at) AS inactive_since,
    s.snapshot_day - CAST(timezone('UTC', coalesce(s.last_activity_at, s.created_at)) AS DATE) AS days_inactive,
    s.pending_cancellation_date
FROM snapshots.seats AS s
JOIN newest AS n USING (org_login, snapshot_day)
WHERE s.last_activity_at IS NULL
   OR s.last_activity_at < timezone('UTC', CAST(s.snapshot_day AS TIMESTAMP)) - INTERVAL 30 DAY;

COMMENT ON VIEW bi.inactive_seats IS 'Extension. One row per organization and seat holder on the organization''s newest snapshot day, for seats with no activity in the 30 days before it (never-active included): plan, assigning team, created_at, last_activity_at, inactive_since, days_inactive, pending cancellation.';
