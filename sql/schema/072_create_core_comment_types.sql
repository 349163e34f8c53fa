-- The aggregate report's suggestions of the assistant's review per comment type, and how many
-- were applied (pull_requests.assistant_suggestions_by_comment_type): one row per scope, day
-- and comment type. An absent array gives no rows, never zeros.
CREATE TABLE core.comment_types (
    scope                                VARCHAR NOT NULL,
    scope_name                           VARCHAR NOT NULL,
    day                                  DATE NOT NULL,
    comment_type                         VARCHAR NOT NULL,
    total_assistant_suggestions          BIGINT,
    total_assistant_applied_suggestions  BIGINT,
    report_kind                          VARCHAR NOT NULL,
    fetched_at                           TIMESTAMPTZ NOT NULL,
    is_final                             BOOLEAN
);
