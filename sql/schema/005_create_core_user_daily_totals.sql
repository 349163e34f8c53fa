-- User level: one row per scope, day and user.
CREATE TABLE core.user_daily_totals (
    scope                               VARCHAR NOT NULL,
    scope_name                          VARCHAR NOT NULL,
    day                                 DATE NOT NULL,
    report_kind                         VARCHAR NOT NULL,
    user_id                             BIGINT NOT NULL,
    user_login                          VARCHAR,
    organization_id                     VARCHAR,
    enterprise_id                       VARCHAR,
    used_agent                          BOOLEAN,
    used_chat                           BOOLEAN,
    used_cli                            BOOLEAN,
    user_initiated_interaction_count    BIGINT,
    code_generation_activity_count      BIGINT,
    code_acceptance_activity_count      BIGINT,
    loc_suggested_to_add_sum            BIGINT,
    loc_suggested_to_delete_sum         BIGINT,
    loc_added_sum                       BIGINT,
    loc_deleted_sum                     BIGINT,
    agent_breakdown_present             BOOLEAN NOT NULL,
    extra                               JSON
);
