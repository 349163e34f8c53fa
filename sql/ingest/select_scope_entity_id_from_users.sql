-- Only when no aggregate day of the scope landed yet: the entity id most of its user rows carry.
SELECT entity_id
FROM (
    SELECT CASE WHEN $scope = 'organization' THEN organization_id ELSE enterprise_id END AS entity_id
    FROM core.user_daily_totals WHERE scope = $scope AND scope_name = $scope_name
)
WHERE entity_id IS NOT NULL
GROUP BY entity_id
ORDER BY count(*) DESC, entity_id
LIMIT 1;
