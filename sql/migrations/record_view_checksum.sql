DELETE FROM meta.view_definitions;
INSERT INTO meta.view_definitions (checksum) VALUES ($checksum);
