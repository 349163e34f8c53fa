-- One row per third-party agent entry. agent_job_starts is the nested count, named apart
-- from the top-level user_initiated_interaction_count so the two are never summed.
CREATE TABLE core.agent_activity (
    scope             VARCHAR NOT NULL,
    scope_name        VARCHAR NOT NULL,
    level             VARCHAR NOT NULL,
    day               DATE NOT NULL,
    user_id           BIGINT,
    user_login        VARCHAR,
    agent_id          VARCHAR NOT NULL,
    agent_name        VARCHAR NOT NULL,
    agent_job_starts  BIGINT,
    session_count     BIGINT,
    fetched_at        TIMESTAMPTZ NOT NULL
);
