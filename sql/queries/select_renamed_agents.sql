-- Which agents changed their display name? Every label an agent_id has carried, oldest first,
-- beside the latest one: reports join on agent_id, so a rename never splits an agent's history.
SELECT n.agent_id, d.agent_name AS latest_name, n.agent_name AS label, n.first_seen_day, n.last_seen_day
FROM core.agent_names AS n
JOIN core.dim_agent AS d USING (agent_id)
WHERE n.agent_id IN (SELECT agent_id FROM core.agent_names GROUP BY agent_id HAVING count(*) > 1)
ORDER BY n.agent_id, n.first_seen_day;
