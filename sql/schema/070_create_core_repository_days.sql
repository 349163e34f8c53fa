-- The repos-1-day report (organization and enterprise, from 2026-07-17): one row per repository
-- active that day, landed in the same transaction as the scope's aggregate 1-day record of the
-- day. The pull-request columns (pull_requests_<member>) are the aggregate's: `migrate` adds
-- them from the one declaration of the object (RECORD_OBJECTS, pipelines/transform/schema.py).
-- repo_id is the repository's numeric id: join snapshots.repositories on repository_id.
CREATE TABLE core.repository_days (
    scope            VARCHAR NOT NULL,
    scope_name       VARCHAR NOT NULL,
    day              DATE NOT NULL,
    enterprise_id    VARCHAR,
    organization_id  VARCHAR,
    repo_id          BIGINT NOT NULL,
    repo_owner_name  VARCHAR,
    repo_name        VARCHAR,
    repo_visibility  VARCHAR,
    extra            JSON,          -- fields beyond the declared ones, and values that did not fit
    fetched_at       TIMESTAMPTZ NOT NULL,
    is_final         BOOLEAN
);
-- Each repository's review stages of the pull requests merged that day (from 2026-09-25): human
-- reviews only, per (authored_by, reviewed_by), in minutes. A day without a qualifying merge, or
-- before the field existed, has no rows here, never zeros.
CREATE TABLE core.repository_review_times (
    scope                                   VARCHAR NOT NULL,
    scope_name                              VARCHAR NOT NULL,
    day                                     DATE NOT NULL,
    repo_id                                 BIGINT NOT NULL,
    authored_by                             VARCHAR NOT NULL,
    reviewed_by                             VARCHAR NOT NULL,
    total_merged                            BIGINT,
    median_minutes_ready_to_first_review    DOUBLE,
    p90_minutes_ready_to_first_review       DOUBLE,
    median_minutes_first_to_final_review    DOUBLE,
    p90_minutes_first_to_final_review       DOUBLE,
    median_minutes_final_review_to_merge    DOUBLE,
    p90_minutes_final_review_to_merge       DOUBLE,
    fetched_at                              TIMESTAMPTZ NOT NULL,
    is_final                                BOOLEAN
);
-- Each repository's suggestions of the assistant's review per comment type, and how many were
-- applied (pull_requests.assistant_suggestions_by_comment_type). An absent array: no rows.
CREATE TABLE core.repository_comment_types (
    scope                                VARCHAR NOT NULL,
    scope_name                           VARCHAR NOT NULL,
    day                                  DATE NOT NULL,
    repo_id                              BIGINT NOT NULL,
    comment_type                         VARCHAR NOT NULL,
    total_assistant_suggestions          BIGINT,
    total_assistant_applied_suggestions  BIGINT,
    fetched_at                           TIMESTAMPTZ NOT NULL,
    is_final                             BOOLEAN
);
