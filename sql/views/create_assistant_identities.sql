-- bi.assistant_identities: the identity map, one person across sources (docs/vendors.md, "One
-- person and one agent"). Grain: one row per email (trimmed, lower case), the service login it
-- names, and where that came from: `operator` (a line of the operator's file, IDENTITY_MAP_PATH,
-- vendors.operator_identities) or `seat` (a seat's public email, organization or enterprise
-- listing, the newest snapshot's login when two disagree, then the first in login order).
-- The operator's line wins over a seat's. A view, not a table: the seats' emails change with
-- every snapshot and leave with an erased person's seats, so a table would be a second copy to
-- keep in step and to erase; this reads both as they stand, and costs the seats' few rows.
CREATE OR REPLACE VIEW bi.assistant_identities AS
WITH seat_emails AS (
    SELECT lower(trim(assignee_email)) AS email, login, snapshot_day
    FROM snapshots.seats
    WHERE login IS NOT NULL AND trim(coalesce(assignee_email, '')) <> ''
    UNION ALL
    SELECT lower(trim(assignee_email)), login, snapshot_day
    FROM snapshots.enterprise_seats
    WHERE login IS NOT NULL AND trim(coalesce(assignee_email, '')) <> ''
), seats AS (
    SELECT email, first(login ORDER BY snapshot_day DESC, bi.login_key(login)) AS login
    FROM seat_emails
    GROUP BY email
)
SELECT email, login, 'operator' AS source FROM vendors.operator_identities
UNION ALL
SELECT email, login, 'seat' AS source FROM seats
WHERE email NOT IN (SELECT email FROM vendors.operator_identities);

COMMENT ON VIEW bi.assistant_identities IS 'Full tier. One row per email: the identity map, each email (trimmed, lower case) and the service login it names, from the operator''s file (source operator, which wins) or a seat''s public email (source seat).';
