-- Lines that could not be landed, with where they came from and why.
CREATE TABLE raw.quarantine (
    scope             VARCHAR NOT NULL,
    scope_name        VARCHAR NOT NULL,
    report_kind       VARCHAR NOT NULL,
    level             VARCHAR NOT NULL,
    report_start_day  DATE NOT NULL,
    report_end_day    DATE NOT NULL,
    file_index        INTEGER NOT NULL,
    archive_path      VARCHAR NOT NULL,
    link              VARCHAR NOT NULL,
    line_number       BIGINT NOT NULL,
    reason            VARCHAR NOT NULL,
    line_text         VARCHAR,
    fetched_at        TIMESTAMPTZ NOT NULL
);
