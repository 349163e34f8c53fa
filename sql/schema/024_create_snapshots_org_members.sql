CREATE TABLE IF NOT EXISTS snapshots.org_members (
    snapshot_day DATE    NOT NULL,
    member_id    BIGINT  NOT NULL,
    login        VARCHAR NOT NULL,
    type         VARCHAR,
    site_admin   BOOLEAN,
    PRIMARY KEY (snapshot_day, member_id)
);
