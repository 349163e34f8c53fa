-- core.agent_names keeps every label an agent_id has carried, each with a sane day range.
SELECT count(*) AS failures, string_agg(agent_id || ' ' || agent_name, ', ') AS detail
FROM (
    SELECT DISTINCT agent_id, agent_name FROM core.agent_activity
    EXCEPT SELECT agent_id, agent_name FROM core.agent_names
    UNION ALL
    SELECT agent_id, agent_name FROM core.agent_names WHERE first_seen_day > last_seen_day
);
