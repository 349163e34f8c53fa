-- Grain of core.{table}: one row per {key}. A template: pipelines/warehouse/checks.py fills
-- {table}, {key}, {label} and {slice} from its registry of tables (identifiers only).
-- Over a slice: one report's scope, level and days inside its transaction, or (a NULL scope
-- and the widest days) the whole history in the audit.
-- Two steps, exact: the keys' hashes seen more than once, then the keys themselves grouped
-- over only the rows with such a hash (a collision of two distinct keys is not counted).
-- Grouping 8-byte hashes instead of whole keys keeps the table of groups within the landing's
-- memory limit: 0.18 s against 0.75 s of CPU for 1.7 M breakdown rows. One pass takes the
-- hashes with `% $parts = $part`, so a large slice is grouped a part at a time (the caller
-- sums the passes): a key's rows all fall in one part.
WITH repeated AS (
    SELECT hash({key}) AS key_hash FROM core.{table}
    WHERE day BETWEEN $start_day AND $end_day AND ($scope IS NULL OR ({slice}))
      AND hash({key}) % $parts = $part
    GROUP BY key_hash HAVING count(*) > 1
)
SELECT count(*) AS failures, string_agg(DISTINCT concat_ws(' ', {label}), ', ') AS detail
FROM (
    SELECT {key} FROM core.{table}
    WHERE day BETWEEN $start_day AND $end_day AND ($scope IS NULL OR ({slice}))
      AND hash({key}) IN (SELECT key_hash FROM repeated)
    GROUP BY ALL HAVING count(*) > 1
);
