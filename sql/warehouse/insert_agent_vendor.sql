-- One of the service's third-party agent apps and the vendor whose product it is (Vendor.agents).
INSERT INTO core.agent_vendors (agent_id, vendor) VALUES ($agent_id, $vendor);
