-- bi.field_drift
-- Grain: one row per scope, scope_name, report level, report kind, path and drift.
-- What the service's records carried beyond the schema this warehouse declares (raw.field_drift):
-- drift 'undeclared', a field path no declaration names (the service added it; its values are in
-- each row's `extra`), or 'mistyped', a declared field that arrived in another JSON type (that
-- column is NULL on those rows, the raw value in `extra`). Paths use the service's wire names, an
-- array's elements as name[]. records: records carrying it on the days seen; share: of the
-- records of those days (the newest fetch of each day, raw.report_fetches).
CREATE OR REPLACE VIEW bi.field_drift AS
WITH newest_fetch AS (
    SELECT scope, scope_name, level, report_kind, day, arg_max(records, fetched_at) AS records
    FROM raw.report_fetches
    GROUP BY ALL
), drift AS (
    SELECT scope, scope_name, level, report_kind, path, drift,
           min(day) AS first_day, max(day) AS last_day, count(*) AS days,
           sum(records) AS records, any_value(json_type) AS json_type,
           list(day) AS seen_days
    FROM raw.field_drift
    GROUP BY ALL
)
SELECT d.scope, d.scope_name, d.level, d.report_kind, d.path, d.drift, d.json_type,
       d.first_day, d.last_day, d.days, d.records,
       round(d.records / nullif(sum(f.records), 0), 4) AS share
FROM drift AS d
LEFT JOIN newest_fetch AS f
  ON f.scope = d.scope AND f.scope_name = d.scope_name AND f.level = d.level
 AND f.report_kind = d.report_kind AND list_contains(d.seen_days, f.day)
GROUP BY d.scope, d.scope_name, d.level, d.report_kind, d.path, d.drift, d.json_type,
         d.first_day, d.last_day, d.days, d.records;
COMMENT ON VIEW bi.field_drift IS 'One row per scope, level, report kind, path and drift: fields the records carried beyond the schema (undeclared paths, declared fields in another JSON type: NULL in their column, the raw value in extra), the days seen, the records carrying it and their share.';
