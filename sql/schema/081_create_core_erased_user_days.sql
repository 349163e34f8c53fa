-- The scope days `metrics-etl forget` removed people's user-level records from (or a later fetch
-- dropped them from on ingest), and how many people: never whom (docs/privacy.md). The aggregate
-- report, which the service computes, still counts them, so bi.reconciliation explains the
-- difference these days show. A landing does not replace these rows: a fetch of the day again
-- drops the same people, and the difference stays.
CREATE TABLE core.erased_user_days (
    scope          VARCHAR     NOT NULL,
    scope_name     VARCHAR     NOT NULL,
    day            DATE        NOT NULL,
    people_erased  BIGINT      NOT NULL,
    recorded_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (scope, scope_name, day)
);
