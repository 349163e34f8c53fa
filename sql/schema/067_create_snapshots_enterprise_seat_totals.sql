-- Extension (docs/extensions.md, "Seats"): total_seats as each enterprise's seat listing said it
-- on a snapshot day. It counts each user once however many grants list them, so it is the
-- day's distinct holders in snapshots.enterprise_seats, not its rows. No row for an enterprise
-- whose seats were refused (403) or not enabled (404): a snapshots.warnings row (endpoint
-- 'enterprise_seats') instead.
CREATE TABLE IF NOT EXISTS snapshots.enterprise_seat_totals (
    snapshot_day DATE    NOT NULL,
    enterprise   VARCHAR NOT NULL,
    total_seats  BIGINT  NOT NULL,
    PRIMARY KEY (snapshot_day, enterprise)
);
