-- Freshness against the available day: the newest landed day should be no older than the day
-- before $available_day (reports finalize late, one day of slack).
SELECT CASE WHEN max(day) IS NULL OR max(day) < CAST($available_day AS DATE) - 1 THEN 1 ELSE 0 END AS failures,
       'newest day landed: ' || coalesce(CAST(max(day) AS VARCHAR), 'none') AS detail
FROM core.daily_totals;
