-- Grain of core.agent_activity: scope, level, day, user (NULL at aggregate level) and agent_id.
SELECT count(*) AS failures, string_agg(scope_name || ' ' || day || ' ' || agent_id, ', ') AS detail
FROM (
    SELECT scope, scope_name, level, day, user_id, agent_id
    FROM core.agent_activity GROUP BY ALL HAVING count(*) > 1
);
