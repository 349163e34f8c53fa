-- Before the declared agent map is written again (pipelines/transform/vendor_agents.py).
DELETE FROM core.agent_vendors;
