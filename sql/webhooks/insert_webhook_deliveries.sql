-- Rows come from `webhook_batch_checked` (classify_webhook_batch); returns only the rows inserted.
INSERT INTO events.webhook_deliveries
SELECT
    delivery_id,
    event,
    payload ->> '$.action',
    payload ->> '$.repository.full_name',
    CAST(received_at AS TIMESTAMPTZ),
    CAST(payload AS JSON),
    now()
FROM webhook_batch_checked
WHERE problem IS NULL
ON CONFLICT DO NOTHING
RETURNING delivery_id, repository_full_name;
