-- docs/service-contract.md §2: agent_id is the key and never missing; user-level entries carry no session_count.
-- Over a slice: one report's scope, level and days inside its transaction, or (a NULL scope
-- and the widest days) the whole history in the audit.
SELECT count(*) AS failures,
       string_agg(DISTINCT CASE WHEN agent_id IS NULL THEN 'agent_id missing'
                                ELSE 'session_count at user level' END, ', ') AS detail
FROM core.agent_activity
WHERE day BETWEEN $start_day AND $end_day AND ($scope IS NULL OR (scope = $scope AND scope_name = $scope_name AND level = $level))
  AND (agent_id IS NULL OR (level = 'user' AND session_count IS NOT NULL));
