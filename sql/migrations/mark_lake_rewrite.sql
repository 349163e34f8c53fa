-- A migration changed the schema: the next publish writes every table again.
INSERT INTO meta.lake_changes VALUES ('*', NULL);
