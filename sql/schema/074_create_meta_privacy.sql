-- Erasure (`metrics-etl forget`) and retention (METRICS_RETENTION_DAYS): what they did and when,
-- never whom (docs/privacy.md).
-- Keyed hashes (HMAC-SHA256 under METRICS_PSEUDONYM_KEY) of each erased person's user id and
-- login: a later fetch drops their lines on ingest. Without the key a hash names nobody.
CREATE TABLE meta.forgotten_people (
    hash         VARCHAR PRIMARY KEY,
    recorded_at  TIMESTAMPTZ NOT NULL
);
-- One row per store an erasure finished, in the store's own transaction or after its files:
-- when, and how many rows and files it changed.
CREATE TABLE meta.erasures (
    erasure_id     VARCHAR NOT NULL,
    store          VARCHAR NOT NULL,
    started_at     TIMESTAMPTZ NOT NULL,
    finished_at    TIMESTAMPTZ NOT NULL,
    rows_removed   BIGINT NOT NULL,
    files_changed  BIGINT NOT NULL,
    PRIMARY KEY (erasure_id, store)
);
-- Each raw archive file written again without some of its lines: where it was and is, its
-- sha256 before and after, and why (erasure, or a forgotten person's lines dropped on ingest).
CREATE TABLE meta.archive_lineage (
    archive_path     VARCHAR NOT NULL,
    previous_path    VARCHAR NOT NULL,
    previous_sha256  VARCHAR NOT NULL,
    sha256           VARCHAR NOT NULL,
    lines_removed    BIGINT NOT NULL,
    reason           VARCHAR NOT NULL,
    rewritten_at     TIMESTAMPTZ NOT NULL
);
-- Retention: per store, the first day kept when the daily run last applied it, so the next run
-- looks only at the days that expired since.
CREATE TABLE meta.retention (
    store       VARCHAR PRIMARY KEY,
    kept_from   DATE NOT NULL,
    applied_at  TIMESTAMPTZ NOT NULL
);
