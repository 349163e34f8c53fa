-- No count below zero in core.{table} (least() skips NULLs: a count that is absent is not
-- negative). A template: pipelines/warehouse/checks.py fills {table}, {counters}, {label} and
-- {slice} from its registry of tables (identifiers only).
-- Over a slice: one report's scope, level and days inside its transaction, or (a NULL scope
-- and the widest days) the whole history in the audit.
SELECT count(*) AS failures, string_agg(DISTINCT concat_ws(' ', {label}), ', ') AS detail
FROM core.{table}
WHERE day BETWEEN $start_day AND $end_day AND ($scope IS NULL OR ({slice}))
  AND least({counters}) < 0;
