-- The keys (a user's day, or an aggregate's day) the open report landed more than once, each
-- landing with its file and line: pipelines/ingest/report.py settles them before the checks (a
-- repeated line lands once, different lines of one key not at all). Hashes first, as the grain
-- check does, so a report without any costs one GROUP BY of 8-byte values; a collision of two
-- distinct keys comes back too and the caller groups by the key itself. A refused line of a key
-- (`rejected`) comes back with the key's landed lines, and a line whose rows a file fetched again
-- took out (`orphaned`, orphan_shared_keys.sql) comes back alone too.
WITH repeated AS (
    SELECT hash(day, user_id) AS key_hash FROM landed_keys GROUP BY key_hash HAVING count(*) > 1 OR bool_or(orphaned)
)
SELECT day, user_id, _file_index, line_number, rejected, orphaned
  FROM landed_keys
 WHERE hash(day, user_id) IN (SELECT key_hash FROM repeated)
 ORDER BY day, user_id, _file_index, line_number;
