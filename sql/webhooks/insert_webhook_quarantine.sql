-- The batch's rows that cannot land, with the reason; returns the rows quarantined.
INSERT INTO events.webhook_quarantine
SELECT
    delivery_id,
    event,
    CAST(received_at AS TIMESTAMPTZ),
    ?,
    spool_offset,
    problem,
    payload,
    now()
FROM webhook_batch_checked
WHERE problem IS NOT NULL
ON CONFLICT DO NOTHING
RETURNING delivery_id;
