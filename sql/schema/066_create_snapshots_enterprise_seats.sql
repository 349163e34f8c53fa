-- Extension (docs/extensions.md, "Seats"): each enterprise's seat listing, one row per snapshot
-- day, enterprise, holder and grant. A user granted access by two organizations, or by an
-- organization and an enterprise team, holds two rows: the listing has a seat per grant.
-- granted_through is 'organization' (granted_by: the organization's login), 'enterprise_team'
-- (no granting organization; granted_by: the team's slug) or 'enterprise' (neither; granted_by:
-- the enterprise). A NULL assigning team is a direct assignment.
CREATE TABLE IF NOT EXISTS snapshots.enterprise_seats (
    snapshot_day              DATE        NOT NULL,
    enterprise                VARCHAR     NOT NULL,
    user_id                   BIGINT      NOT NULL,
    granted_through           VARCHAR     NOT NULL,
    granted_by                VARCHAR     NOT NULL,
    login                     VARCHAR,
    organization_login        VARCHAR,
    organization_id           BIGINT,
    assigning_team_id         BIGINT,
    assigning_team_slug       VARCHAR,
    assigning_team_type       VARCHAR,
    plan_type                 VARCHAR,
    created_at                TIMESTAMPTZ,
    updated_at                TIMESTAMPTZ,
    pending_cancellation_date DATE,
    last_activity_at          TIMESTAMPTZ,
    last_activity_editor      VARCHAR,
    last_authenticated_at     TIMESTAMPTZ,
    PRIMARY KEY (snapshot_day, enterprise, user_id, granted_through, granted_by)
);
