-- The 28-day aggregate report's feature engagement (September 2026): how many of its active
-- users engaged with each feature on at least two of the 28 days, beside that active-user
-- total. One row per scope, 28-day report and feature, on the report's last day. A user engages
-- with several features, so the rows never add up to active_user_count.
CREATE TABLE core.feature_engagement (
    scope               VARCHAR NOT NULL,
    scope_name          VARCHAR NOT NULL,
    level               VARCHAR NOT NULL,
    report_kind         VARCHAR NOT NULL,
    day                 DATE NOT NULL,
    feature             VARCHAR NOT NULL,
    engaged_user_count  BIGINT,
    active_user_count   BIGINT,
    fetched_at          TIMESTAMPTZ NOT NULL,
    is_final            BOOLEAN
);
