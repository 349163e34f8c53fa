-- core.organization_enterprise_days for a scope's days $start_day..$end_day. An organization's
-- rows of those days were deleted before (as every rollup's); an enterprise's landing replaces
-- the rows that name it, since its users decide them as much as the organization's.
DELETE FROM core.organization_enterprise_days
 WHERE $scope = 'enterprise' AND enterprise = $scope_name AND day BETWEEN $start_day AND $end_day;

INSERT INTO core.organization_enterprise_days BY NAME
SELECT 'organization' AS scope, o.scope_name, o.day, e.scope_name AS enterprise,
       count(DISTINCT o.user_id) AS shared_users
  FROM core.user_daily_totals AS o
  JOIN core.user_daily_totals AS e ON e.day = o.day AND e.user_id = o.user_id
 WHERE o.scope = 'organization' AND e.scope = 'enterprise'
   AND o.day BETWEEN $start_day AND $end_day AND e.day BETWEEN $start_day AND $end_day
   AND (($scope = 'organization' AND o.scope_name = $scope_name)
        OR ($scope = 'enterprise' AND e.scope_name = $scope_name))
 GROUP BY ALL;
