-- Fields the reports this run fetched carried beyond the schema (raw.field_drift): undeclared
-- paths, and declared ones in another JSON type (landed as NULL, the raw value in `extra`).
-- A warning, not a stop: every line landed. Declare the field (docs/architecture.md) or ask
-- why the service changed it; `metrics-etl fields` lists them with their share of records.
WITH seen AS (
    SELECT path, drift, sum(records) AS records, min(day) AS first_day, max(day) AS last_day
    FROM raw.field_drift
    WHERE fetched_at >= $since AND day BETWEEN $start_day AND $end_day
    GROUP BY ALL
)
SELECT count(*) AS failures,
       string_agg(path || ' (' || drift || ', ' || records || ' records, ' || first_day || '..' || last_day || ')',
                  ' | ' ORDER BY path) AS detail
FROM seen;
