-- The incidents core.service_incidents holds, as pipelines/warehouse/incidents.py declares them.
SELECT incident_id, first_day, last_day, days_approximate, scopes, measures, summary, service_said
FROM core.service_incidents
ORDER BY incident_id;
