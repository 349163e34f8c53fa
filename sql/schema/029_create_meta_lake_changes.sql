-- Partitions of the lake that writes changed since the last publish: (table, day), a NULL day
-- for a table written whole, table '*' for everything (after a migration, and to begin with).
CREATE TABLE meta.lake_changes (
    table_name  VARCHAR NOT NULL,
    day         DATE
);
INSERT INTO meta.lake_changes VALUES ('*', NULL);
