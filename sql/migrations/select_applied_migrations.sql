-- The bookkeeping tables (created on a new warehouse), then the migrations already applied.
CREATE SCHEMA IF NOT EXISTS meta;
CREATE TABLE IF NOT EXISTS meta.schema_migrations (
    version     INTEGER PRIMARY KEY,
    name        VARCHAR NOT NULL,
    applied_at  TIMESTAMP NOT NULL DEFAULT now()
);
-- One row: the checksum of sql/views/ the warehouse's views were last created from.
CREATE TABLE IF NOT EXISTS meta.view_definitions (
    checksum    VARCHAR NOT NULL,
    created_at  TIMESTAMP NOT NULL DEFAULT now()
);
-- Columns `migrate` added to a table because a record field was declared (schema.RECORD_FIELDS).
CREATE TABLE IF NOT EXISTS meta.declared_columns (
    table_name   VARCHAR NOT NULL,
    column_name  VARCHAR NOT NULL,
    data_type    VARCHAR NOT NULL,
    added_at     TIMESTAMP NOT NULL DEFAULT now(),
    PRIMARY KEY (table_name, column_name)
);
SELECT version FROM meta.schema_migrations ORDER BY version;
