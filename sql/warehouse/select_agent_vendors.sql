-- The agent map as the warehouse holds it (pipelines/transform/vendor_agents.py).
SELECT agent_id, vendor FROM core.agent_vendors ORDER BY agent_id, vendor;
