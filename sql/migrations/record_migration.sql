INSERT INTO meta.schema_migrations (version, name) VALUES ($version, $name);
