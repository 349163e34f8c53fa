-- The page's seats section: the seats unused longest, on each organization's newest snapshot day.
SELECT org_login, login, coalesce(assigning_team_slug, 'direct'), inactive_since, days_inactive,
       last_activity_at IS NULL AS never_active, pending_cancellation_date
FROM bi.inactive_seats
ORDER BY days_inactive DESC, login
LIMIT 20;
