-- Extension (docs/extensions.md, "Seats"): the seats each organization pays for, one row per
-- snapshot day, organization and seat holder. A NULL assigning team is a direct assignment; a
-- NULL last_activity_at means no activity in the last 90 days, or never.
CREATE TABLE IF NOT EXISTS snapshots.seats (
    snapshot_day              DATE        NOT NULL,
    org_login                 VARCHAR     NOT NULL,
    user_id                   BIGINT      NOT NULL,
    login                     VARCHAR,
    assigning_team_id         BIGINT,
    assigning_team_slug       VARCHAR,
    plan_type                 VARCHAR,
    created_at                TIMESTAMPTZ,
    updated_at                TIMESTAMPTZ,
    pending_cancellation_date DATE,
    last_activity_at          TIMESTAMPTZ,
    last_activity_editor      VARCHAR,
    last_authenticated_at     TIMESTAMPTZ,
    PRIMARY KEY (snapshot_day, org_login, user_id)
);
