SELECT version FROM meta.schema_migrations ORDER BY version;
