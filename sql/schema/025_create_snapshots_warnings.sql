-- Repositories skipped on a snapshot day (404/403), so a gap in the other tables is explained.
CREATE TABLE IF NOT EXISTS snapshots.warnings (
    snapshot_day DATE    NOT NULL,
    repository   VARCHAR NOT NULL,
    endpoint     VARCHAR NOT NULL,
    status       INTEGER NOT NULL,
    message      VARCHAR NOT NULL,
    PRIMARY KEY (snapshot_day, repository, endpoint)
);
