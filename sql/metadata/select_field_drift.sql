-- Fields beyond the schema on the newest 28 landed days (raw.field_drift), most records first:
-- the run summary's line, and `metrics-etl fields`.
SELECT path, drift, any_value(json_type) AS json_type, sum(records) AS records, min(day) AS first_day,
       max(day) AS last_day
FROM raw.field_drift
WHERE day > (SELECT max(day) FROM raw.report_fetches) - 28
GROUP BY ALL
ORDER BY records DESC, path;
