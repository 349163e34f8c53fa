INSERT INTO events.spool_offsets (segment, "offset", updated_at)
VALUES (?, ?, now())
ON CONFLICT (segment) DO UPDATE SET "offset" = excluded."offset", updated_at = excluded.updated_at;
