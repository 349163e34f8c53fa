-- Each scope's reported days in the aggregate tier (a row of aggregate.scope_daily per day a
-- report landed, its figures hidden or not) and whether each was final when fetched: the
-- calendar every metric's gaps, provisional days and compared days are read against.
CREATE OR REPLACE TEMP VIEW metrics_calendar AS
SELECT scope, scope_name, day, bool_and(coalesce(is_final, TRUE)) AS is_final
FROM aggregate.scope_daily
GROUP BY ALL;
