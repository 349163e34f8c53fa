-- core.agent_names keeps every label an agent_id has carried, each with a day range that
-- covers the days it was seen.
-- Over a slice: one report's scope, level and days inside its transaction, or (a NULL scope
-- and the widest days) the whole history in the audit.
SELECT count(*) AS failures, string_agg(agent_id || ' ' || agent_name, ', ') AS detail
FROM (
    SELECT DISTINCT a.agent_id, a.agent_name
      FROM core.agent_activity AS a
      LEFT JOIN core.agent_names AS n
        ON n.agent_id = a.agent_id AND n.agent_name = a.agent_name
       AND a.day BETWEEN n.first_seen_day AND n.last_seen_day
     WHERE a.day BETWEEN $start_day AND $end_day AND ($scope IS NULL OR (a.scope = $scope AND a.scope_name = $scope_name AND a.level = $level))
       AND n.agent_id IS NULL
);
