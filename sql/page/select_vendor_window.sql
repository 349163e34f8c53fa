-- The page's "Assistants across vendors" section: whether a vendor landed (a vendor's row in the
-- usage or the cost view, any scope), and the section's days: the newest 28 up to the newest day
-- with a row in the page's scope or under scope `vendor` (the people no scope of the service has).
WITH days AS (
    SELECT day FROM bi.assistant_usage_daily
    WHERE (scope = $scope AND scope_name = $scope_name) OR scope = 'vendor'
    UNION ALL
    SELECT day FROM bi.assistant_cost_daily
    WHERE (scope = $scope AND scope_name = $scope_name) OR scope = 'vendor'
)
SELECT (EXISTS (SELECT 1 FROM bi.assistant_usage_daily WHERE source_kind = 'vendor')
        OR EXISTS (SELECT 1 FROM bi.assistant_cost_daily WHERE source <> 'service')) AS vendor_landed,
       CAST(max(day) - INTERVAL 27 DAY AS DATE) AS first_day,
       max(day) AS last_day
FROM days;
