-- The scopes the tier holds, and scope `vendor` (scope_name the vendor) where it counts people no
-- login is known for.
SELECT DISTINCT scope, scope_name FROM metrics_calendar
UNION
SELECT DISTINCT scope, scope_name FROM metrics_vendor_daily WHERE scope = 'vendor'
ORDER BY ALL
