-- Issues and pull requests alike (the REST issues list returns both); labels kept as a list.
CREATE TABLE IF NOT EXISTS snapshots.issues (
    snapshot_day         DATE      NOT NULL,
    issue_id             BIGINT    NOT NULL,
    repository_id        BIGINT    NOT NULL,
    repository_full_name VARCHAR   NOT NULL,
    number               BIGINT    NOT NULL,
    title                VARCHAR,
    is_pull_request      BOOLEAN   NOT NULL,
    state                VARCHAR,
    state_reason         VARCHAR,
    labels               VARCHAR[] NOT NULL,
    user_login           VARCHAR,
    user_id              BIGINT,
    comments             BIGINT,
    created_at           TIMESTAMPTZ,
    updated_at           TIMESTAMPTZ,
    closed_at            TIMESTAMPTZ,
    PRIMARY KEY (snapshot_day, issue_id)
);
