-- What records carried beyond the schema, per report and day: each undeclared field path and
-- each declared field that arrived in another JSON type (landed as NULL, its raw value kept in
-- the row's `extra`). Replaced with the report's days, like the rows it describes.
CREATE TABLE raw.field_drift (
    scope         VARCHAR NOT NULL,
    scope_name    VARCHAR NOT NULL,
    level         VARCHAR NOT NULL,   -- aggregate or user
    report_kind   VARCHAR NOT NULL,   -- 1-day or 28-day
    day           DATE NOT NULL,
    path          VARCHAR NOT NULL,   -- wire names, an array's elements as name[]: totals_by_ide[].loc_added_sum
    drift         VARCHAR NOT NULL,   -- undeclared, or mistyped
    records       BIGINT NOT NULL,    -- records of the day that carried it
    json_type     VARCHAR NOT NULL,   -- the JSON type of a value seen (object, array, string, number, boolean)
    fetched_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (scope, scope_name, level, report_kind, day, path, drift)
);
