-- bi.seat_utilization (extension: docs/extensions.md, "Seats")
-- Grain: one row per snapshot_day, org_login, plan_type and assignment group: a team
-- (assigning_team_id, with its slug as listed that day), 'direct' (assigned without a team,
-- assigning_team_id NULL) or 'unassigned' (a seat the listing sent without an assignee: a deleted
-- or pending account; snapshots.unassigned_seats). Every seat is in exactly one row, so each
-- count adds up across rows: sum a column over teams and plans for the organization's figure.
-- Activity is measured from the start (00:00 UTC) of the snapshot day: active_7d / active_30d:
-- last_activity_at at most 7 / 30 days before it (or later that day); inactive_30d: every other
-- seat, the never-active ones included (active_30d + inactive_30d = seats); never_active:
-- last_activity_at NULL, which the service also answers after 90 days without activity;
-- pending_cancellation: a pending_cancellation_date is set.
-- Days whose seats were refused (403) or not enabled (404) have no rows: see snapshots.warnings.
CREATE OR REPLACE VIEW bi.seat_utilization AS
WITH listed AS (
    SELECT snapshot_day, org_login, plan_type, assigning_team_id, assigning_team_slug, last_activity_at,
           pending_cancellation_date, FALSE AS unassigned
    FROM snapshots.seats
    UNION ALL
    SELECT snapshot_day, scope_name, plan_type, assigning_team_id, assigning_team_slug, last_activity_at,
           pending_cancellation_date, TRUE
    FROM snapshots.unassigned_seats WHERE scope = 'organization'
),
seats AS (
    SELECT
        s.*,
        s.last_activity_at >= timezone('UTC', CAST(s.snapshot_day AS TIMESTAMP)) - INTERVAL 7 DAY AS active_7d,
        s.last_activity_at >= timezone('UTC', CAST(s.snapshot_day AS TIMESTAMP)) - INTERVAL 30 DAY AS active_30d
    FROM listed AS s
)
SELECT
    snapshot_day,
    org_login,
    plan_type,
    CASE WHEN unassigned THEN 'unassigned' WHEN assigning_team_id IS NULL THEN 'direct' ELSE 'team' END AS assignment,
    assigning_team_id,
    max(assigning_team_slug) AS assigning_team_slug,
    count(*) AS seats,
    count(*) FILTER (WHERE active_7d) AS active_7d,
    count(*) FILTER (WHERE active_30d) AS active_30d,
    count(*) FILTER (WHERE active_30d IS NOT TRUE) AS inactive_30d,
    count(*) FILTER (WHERE last_activity_at IS NULL) AS never_active,
    count(*) FILTER (WHERE pending_cancellation_date IS NOT NULL) AS pending_cancellation
FROM seats
GROUP BY ALL;

COMMENT ON VIEW bi.seat_utilization IS 'Extension. One row per snapshot day, organization, plan type and assigning team (or direct assignment, or unassigned: a seat without an assignee): seats, active in the last 7 and 30 days, inactive 30 days (never-active included), never active, pending cancellation. Every seat in one row: the counts add up across rows.';
