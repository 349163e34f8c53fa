-- The page's incidents section: each known service incident touching a landed day of the page's
-- scopes, the first and last of those days, how many, and the scopes affected.
SELECT incident_id, min(day) AS first_day, max(day) AS last_day, count(DISTINCT day) AS days,
       string_agg(DISTINCT scope || ' ' || scope_name, ', ' ORDER BY scope || ' ' || scope_name) AS scopes,
       any_value(days_approximate) AS days_approximate, any_value(measures) AS measures,
       any_value(summary) AS summary, any_value(service_said) AS service_said
FROM bi.service_incident_days
GROUP BY incident_id
ORDER BY first_day, incident_id;
