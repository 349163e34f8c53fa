-- A catalog table no migration created, from its declaration (pipelines/warehouse/columns.py),
-- in its schema (created with its first table: a new schema is its tables' declarations too).
-- {schema}, {table} and {columns} come from the declarations in code, never from input.
CREATE SCHEMA IF NOT EXISTS {schema};
CREATE TABLE IF NOT EXISTS {table} ({columns});
