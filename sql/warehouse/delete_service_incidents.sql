-- Before the declared incidents are written again (pipelines/warehouse/incidents.py).
DELETE FROM core.service_incidents;
