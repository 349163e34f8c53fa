-- The batch's payloads that are not valid JSON to DuckDB; returns the rows quarantined.
INSERT INTO events.webhook_quarantine
SELECT
    delivery_id,
    event,
    CAST(received_at AS TIMESTAMPTZ),
    ?,
    spool_offset,
    'payload is not valid JSON for the warehouse',
    payload,
    now()
FROM webhook_batch
WHERE NOT json_valid(payload)
ON CONFLICT DO NOTHING
RETURNING delivery_id;
