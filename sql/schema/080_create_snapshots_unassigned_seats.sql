-- Extension (docs/extensions.md, "Seats"): seats whose assignee the listing sent as null, as the
-- service documents the seat of a deleted or pending account. They have no holder to key them,
-- so each listing's are numbered in listing order (seat_number) on the snapshot day. They count
-- in the listing's total_seats beside snapshots.seats (or enterprise_seats) rows.
CREATE TABLE IF NOT EXISTS snapshots.unassigned_seats (
    snapshot_day              DATE        NOT NULL,
    scope                     VARCHAR     NOT NULL,  -- organization | enterprise: whose listing
    scope_name                VARCHAR     NOT NULL,
    seat_number               BIGINT      NOT NULL,
    assigning_team_id         BIGINT,
    assigning_team_slug       VARCHAR,
    plan_type                 VARCHAR,
    created_at                TIMESTAMPTZ,
    updated_at                TIMESTAMPTZ,
    pending_cancellation_date DATE,
    last_activity_at          TIMESTAMPTZ,
    last_activity_editor      VARCHAR,
    last_authenticated_at     TIMESTAMPTZ,
    organization_login        VARCHAR,
    assigning_team_type       VARCHAR,
    PRIMARY KEY (snapshot_day, scope, scope_name, seat_number)
);
