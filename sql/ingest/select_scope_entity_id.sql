-- The entity id the warehouse already holds for a scope and name: the one most of its landed
-- aggregate days carry, or no row when none landed yet. core.daily_totals has one row per
-- scope and day, so this costs the same after years (the user table would be a full scan).
SELECT entity_id
FROM (
    SELECT CASE WHEN $scope = 'organization' THEN organization_id ELSE enterprise_id END AS entity_id
    FROM core.daily_totals WHERE scope = $scope AND scope_name = $scope_name
)
WHERE entity_id IS NOT NULL
GROUP BY entity_id
ORDER BY count(*) DESC, entity_id
LIMIT 1;
