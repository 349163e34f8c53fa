-- A declared record field's column, added nullable (no rewrite of the table's rows), and recorded.
-- {schema}, {table}, {column}, {type} come from the field declarations, never from input.
ALTER TABLE "{schema}"."{table}" ADD COLUMN IF NOT EXISTS "{column}" {type};
INSERT OR REPLACE INTO meta.declared_columns (table_name, column_name, data_type)
VALUES ($table_name, $column_name, $data_type);
