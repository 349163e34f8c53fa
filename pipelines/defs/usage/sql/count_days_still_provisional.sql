-- Days old enough to be final whose newest fetch came before they were final: their numbers are
-- still the early, lagging ones. The daily schedule fetches each day again until three full UTC
-- days after it (METRICS_TRAILING_DAYS, 3), so a day more than four days before the newest
-- available day should have a final fetch. From raw.report_fetches, a few rows a day. Fetch the
-- named days again: `metrics-etl run --day D`.
WITH newest AS (
    SELECT scope, scope_name, level, day, arg_max(is_final, fetched_at) AS is_final
    FROM raw.report_fetches
    GROUP BY ALL
)
SELECT count(*) AS failures,
       string_agg(scope || ' ' || scope_name || ' ' || level || ' ' || day, ', ' ORDER BY day) AS detail
FROM newest
WHERE NOT is_final AND day < CAST($available_day AS DATE) - 3;
