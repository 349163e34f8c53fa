-- GraphQL counts; repository_id comes from the REST record the query was made for.
CREATE TABLE IF NOT EXISTS snapshots.repository_stats (
    snapshot_day            DATE    NOT NULL,
    repository_id           BIGINT  NOT NULL,
    full_name               VARCHAR NOT NULL,
    stargazer_count         BIGINT,
    fork_count              BIGINT,
    open_issue_count        BIGINT,
    issue_count             BIGINT,
    open_pull_request_count BIGINT,
    pull_request_count      BIGINT,
    mentionable_user_count  BIGINT,
    default_branch_name     VARCHAR,
    PRIMARY KEY (snapshot_day, repository_id)
);
