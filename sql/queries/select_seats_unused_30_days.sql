-- Seats paid for but unused for 30 days or more (extension: seats), on each organization's
-- newest snapshot day: who holds them, through which team, since when, and whether the seat is
-- already being cancelled. A seat assigned less than 30 days ago and never used is left out:
-- its holder has not had 30 days yet. Longest unused first.
SELECT
    org_login,
    login,
    user_id,
    plan_type,
    coalesce(assigning_team_slug, '(direct)') AS assigned_through,
    inactive_since,
    days_inactive,
    last_activity_at IS NULL AS never_active,
    pending_cancellation_date
FROM bi.inactive_seats
WHERE days_inactive >= 30
ORDER BY org_login, days_inactive DESC, login;
