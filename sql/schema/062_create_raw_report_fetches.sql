-- Every fetch of a day: one row per scope, level, report kind, day and fetch, landed in the
-- fetch's own transaction, with what that fetch carried for the day (before any rule of the
-- landing keeps an older row). A day fetched while provisional and again later shows how much
-- it moved between fetches (bi.report_drift). Fetches before this migration are not known.
CREATE TABLE raw.report_fetches (
    scope                             VARCHAR NOT NULL,
    scope_name                        VARCHAR NOT NULL,
    level                             VARCHAR NOT NULL,  -- aggregate or user
    report_kind                       VARCHAR NOT NULL,  -- 1-day or 28-day
    day                               DATE NOT NULL,
    fetched_at                        TIMESTAMPTZ NOT NULL,
    is_final                          BOOLEAN NOT NULL,  -- the day was final at the fetch
    report_start_day                  DATE NOT NULL,
    report_end_day                    DATE NOT NULL,
    records                           BIGINT NOT NULL,   -- records of the day (aggregate 1, user level one per user)
    agent_array_records               BIGINT NOT NULL,   -- of them, records carrying the agent array
    user_initiated_interaction_count  BIGINT ,
    code_generation_activity_count    BIGINT ,
    code_acceptance_activity_count    BIGINT ,
    loc_suggested_to_add_sum          BIGINT ,
    loc_suggested_to_delete_sum       BIGINT ,
    loc_added_sum                     BIGINT ,
    loc_deleted_sum                   BIGINT ,
    -- aggregate: daily_active_users, user level: rows with interactions or code generation
    active_users                      BIGINT,
    -- agent job starts of the day, NULL when no record of the day carried the agent array
    agent_job_starts                  BIGINT ,
    PRIMARY KEY (scope, scope_name, level, report_kind, day, fetched_at)
);
