-- bi.service_incident_days
-- Grain: one row per scope, scope_name, day and incident: each landed day (an aggregate or a
-- user-level report) within a known service incident (core.service_incidents, declared in
-- pipelines/warehouse/incidents.py) whose scopes include the day's scope. Join it to any daily
-- view on (scope, scope_name, day): a day with a row here has measures the service documented as
-- wrong that day (measures), said why (summary, service_said). days_approximate: the service
-- named a month or "about", not exact days. A day without a row has no known incident.
CREATE OR REPLACE VIEW bi.service_incident_days AS
WITH landed AS (
    SELECT scope, scope_name, day FROM core.daily_totals
    UNION
    SELECT scope, scope_name, day FROM core.user_report_days
)
SELECT l.scope, l.scope_name, l.day, i.incident_id, i.measures, i.summary, i.service_said,
       i.first_day, i.last_day, i.days_approximate
FROM landed AS l
JOIN core.service_incidents AS i
  ON l.day BETWEEN i.first_day AND i.last_day AND list_contains(i.scopes, l.scope);

COMMENT ON VIEW bi.service_incident_days IS 'One row per scope, landed day and known service incident covering it: the measures the service documented as wrong that day and what it said. Join on (scope, scope_name, day), and no row means no known incident.';
