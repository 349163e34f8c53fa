-- Several organizations share people: a member row is per organization. Rows taken before
-- this migration belong to the one organization configured then, named by the repositories
-- of the same snapshot day ('' where that day has none).
CREATE TABLE snapshots.org_members_by_org (
    snapshot_day DATE    NOT NULL,
    org_login    VARCHAR NOT NULL,
    member_id    BIGINT  NOT NULL,
    login        VARCHAR NOT NULL,
    type         VARCHAR,
    site_admin   BOOLEAN,
    PRIMARY KEY (snapshot_day, org_login, member_id)
);
INSERT INTO snapshots.org_members_by_org
SELECT m.snapshot_day,
       coalesce((SELECT min(r.owner_login) FROM snapshots.repositories AS r WHERE r.snapshot_day = m.snapshot_day), ''),
       m.member_id, m.login, m.type, m.site_admin
FROM snapshots.org_members AS m;
DROP TABLE snapshots.org_members;
ALTER TABLE snapshots.org_members_by_org RENAME TO org_members;
