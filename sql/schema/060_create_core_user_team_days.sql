-- Extension (docs/extensions.md): who was on which team, per day, from the user-teams report.
-- One row per scope, day, user and team, landed in the same transaction as that day's
-- user-level records, so team metrics never join a membership to another fetch's activity.
-- Teams with fewer than 5 seated users that day are not in the report, so not here.
CREATE TABLE core.user_team_days (
    scope        VARCHAR NOT NULL,
    scope_name   VARCHAR NOT NULL,
    day          DATE NOT NULL,
    user_id      BIGINT NOT NULL,
    user_login   VARCHAR,
    entity_id    VARCHAR,        -- organization_id or enterprise_id, as the report names the scope
    team_id      BIGINT NOT NULL,
    slug         VARCHAR NOT NULL, -- the slug that day (slugs change, team_id does not)
    fetched_at   TIMESTAMPTZ NOT NULL
);
-- A few rows per day: each listed team with its slug and member count. core.dim_team is
-- refreshed from it for the teams a landing touched, so no refresh scans the memberships.
CREATE TABLE core.team_days (
    scope       VARCHAR NOT NULL,
    scope_name  VARCHAR NOT NULL,
    day         DATE NOT NULL,
    team_id     BIGINT NOT NULL,
    slug        VARCHAR NOT NULL,
    members     BIGINT NOT NULL,
    fetched_at  TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (scope, scope_name, day, team_id)
);
-- One row per team: its latest slug (join facts on team_id, show this slug).
CREATE TABLE core.dim_team (
    scope           VARCHAR NOT NULL,
    scope_name      VARCHAR NOT NULL,
    team_id         BIGINT NOT NULL,
    slug            VARCHAR NOT NULL,
    first_seen_day  DATE NOT NULL,
    last_seen_day   DATE NOT NULL,
    PRIMARY KEY (scope, scope_name, team_id)
);
