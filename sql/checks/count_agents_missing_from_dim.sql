-- Every agent_id in the facts has its latest label in core.dim_agent.
SELECT count(*) AS failures, string_agg(agent_id, ', ') AS detail
FROM (SELECT DISTINCT agent_id FROM core.agent_activity
      EXCEPT SELECT agent_id FROM core.dim_agent);
