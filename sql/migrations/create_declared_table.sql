-- A catalog table no migration created, from its declaration (pipelines/warehouse/columns.py).
-- {table} and {columns} come from the declarations in code, never from input.
CREATE TABLE IF NOT EXISTS {table} ({columns});
