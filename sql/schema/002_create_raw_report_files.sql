-- One row per downloaded report file; the signed link is stored without its query.
CREATE TABLE raw.report_files (
    scope             VARCHAR NOT NULL,
    scope_name        VARCHAR NOT NULL,
    report_kind       VARCHAR NOT NULL,
    level             VARCHAR NOT NULL,
    report_start_day  DATE NOT NULL,
    report_end_day    DATE NOT NULL,
    file_index        INTEGER NOT NULL,
    bytes             BIGINT NOT NULL,
    sha256            VARCHAR NOT NULL,
    records           BIGINT NOT NULL,
    quarantined       BIGINT NOT NULL,
    archive_path      VARCHAR NOT NULL,
    link              VARCHAR NOT NULL,
    fetched_at        TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (scope, scope_name, report_kind, level, report_start_day, report_end_day, file_index)
);
