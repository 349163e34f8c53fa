-- Recomputed from the whole of core.agent_activity: the latest label is the one of the
-- latest day, ties broken by the latest fetch (then by name, so the result is stable).
DELETE FROM core.dim_agent;
INSERT INTO core.dim_agent (agent_id, agent_name, first_seen_day, last_seen_day)
SELECT agent_id,
       arg_max(agent_name, (day, fetched_at, agent_name)),
       min(day),
       max(day)
  FROM core.agent_activity
 GROUP BY agent_id;
DELETE FROM core.agent_names;
INSERT INTO core.agent_names (agent_id, agent_name, first_seen_day, last_seen_day)
SELECT agent_id, agent_name, min(day), max(day)
  FROM core.agent_activity
 GROUP BY agent_id, agent_name;
