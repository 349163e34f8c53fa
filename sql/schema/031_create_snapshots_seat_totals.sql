-- Extension (docs/extensions.md, "Seats"): total_seats as each organization's seat listing
-- said it on a snapshot day; a table of its own so an organization without seats keeps its 0.
-- No row for an organization whose seats were refused (403) or not enabled (404): that day
-- has a snapshots.warnings row (endpoint 'seats') instead.
CREATE TABLE IF NOT EXISTS snapshots.seat_totals (
    snapshot_day DATE    NOT NULL,
    org_login    VARCHAR NOT NULL,
    total_seats  BIGINT  NOT NULL,
    PRIMARY KEY (snapshot_day, org_login)
);
