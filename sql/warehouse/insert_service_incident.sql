-- One declared incident (pipelines/warehouse/incidents.py).
INSERT INTO core.service_incidents
VALUES ($incident_id, $first_day, $last_day, $days_approximate, $scopes, $measures, $summary, $service_said);
