-- Every path the records carried beyond the schema, over every landed day (raw.field_drift),
-- with the records of the reports and days it was seen in (their newest fetch), for the share.
WITH newest_fetch AS (
    SELECT scope, scope_name, level, report_kind, day, arg_max(records, fetched_at) AS records
    FROM raw.report_fetches
    GROUP BY ALL
)
SELECT d.path, d.drift, any_value(d.json_type) AS json_type, sum(d.records) AS records,
       sum(f.records) AS of_records, min(d.day) AS first_day, max(d.day) AS last_day
FROM raw.field_drift AS d
LEFT JOIN newest_fetch AS f USING (scope, scope_name, level, report_kind, day)
GROUP BY d.path, d.drift
ORDER BY records DESC, d.path;
