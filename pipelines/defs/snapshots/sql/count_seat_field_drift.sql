-- Fields the newest snapshot day's seat listings carried beyond the declared seat fields
-- (pipelines/transform/seat_fields.py), from raw.field_drift, whose level 'seats' is
-- seat_fields.LISTING_LEVEL: undeclared paths, and declared objects sent as something else. A
-- warning, not a stop: every such seat landed, its values in the row's `extra`. Declare the field
-- (one line of SEAT_FIELDS) or ask why the service changed; `metrics-etl fields` lists them.
SELECT count(*) AS failures,
       string_agg(path || ' (' || drift || ', ' || records || ' seats of ' || scope || ' ' || scope_name || ')',
                  ' | ' ORDER BY path, scope, scope_name) AS detail
FROM raw.field_drift
WHERE level = 'seats'
  AND day = (SELECT max(snapshot_day) FROM snapshots.org_members);
