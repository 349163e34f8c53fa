-- An erased person's keyed hashes, kept so a later fetch drops their lines on ingest.
INSERT INTO meta.forgotten_people (hash, recorded_at)
SELECT hash, now() FROM unnest(CAST($hashes AS VARCHAR[])) AS t(hash)
ON CONFLICT DO NOTHING
