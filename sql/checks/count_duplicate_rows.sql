-- Grain of core.{table}: one row per {key}. A template: pipelines/warehouse/checks.py fills
-- {table}, {key}, {label} and {slice} from its registry of tables (identifiers only).
-- Over a slice: one report's scope, level and days inside its transaction, or (a NULL scope
-- and the widest days) the whole history in the audit.
SELECT count(*) AS failures, string_agg(concat_ws(' ', {label}), ', ') AS detail
FROM (
    SELECT {key} FROM core.{table}
    WHERE day BETWEEN $start_day AND $end_day AND ($scope IS NULL OR ({slice}))
    GROUP BY ALL HAVING count(*) > 1
);
