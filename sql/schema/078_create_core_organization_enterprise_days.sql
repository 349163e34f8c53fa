-- One row per organization, day and enterprise whose user-level reports of that day share users:
-- the enterprise an organization is in, kept by the landing of either side, so
-- bi.reconciliation reads a few rows instead of a day of both scopes' user rows.
CREATE TABLE core.organization_enterprise_days (
    scope        VARCHAR NOT NULL,  -- always 'organization'
    scope_name   VARCHAR NOT NULL,  -- the organization
    day          DATE NOT NULL,
    enterprise   VARCHAR NOT NULL,
    shared_users BIGINT NOT NULL,   -- distinct users in both reports that day
    PRIMARY KEY (scope, scope_name, day, enterprise)
);
