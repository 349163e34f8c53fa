DELETE FROM meta.rollup_definitions;
INSERT INTO meta.rollup_definitions (checksum) VALUES ($checksum);
