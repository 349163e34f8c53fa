-- The service's known incidents: days its numbers are known to be wrong, as it documented them.
-- Declared in pipelines/warehouse/incidents.py (adding one is one declaration there); `migrate`
-- makes this table the declaration. Small, so the lake writes it whole on each publish.
CREATE TABLE core.service_incidents (
    incident_id          VARCHAR NOT NULL PRIMARY KEY,
    first_day            DATE NOT NULL,
    last_day             DATE NOT NULL,
    days_approximate     BOOLEAN NOT NULL,  -- the service gave no exact first or last day
    scopes               VARCHAR[] NOT NULL,  -- organization, enterprise
    measures             VARCHAR[] NOT NULL,  -- the fields whose numbers are off on those days
    summary              VARCHAR NOT NULL,  -- what is wrong, in a line
    service_said         VARCHAR NOT NULL   -- what the service said, and where
);
