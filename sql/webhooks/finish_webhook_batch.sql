-- Last statements of a batch's transaction: the segment's position moves past the batch, and
-- the batch's rows that cannot land are set aside with the reason; returns the rows set aside.
INSERT INTO events.spool_offsets (segment, "offset", updated_at)
VALUES ($segment, $offset, now())
ON CONFLICT (segment) DO UPDATE SET "offset" = excluded."offset", updated_at = excluded.updated_at;
INSERT INTO events.webhook_quarantine
SELECT
    delivery_id,
    event,
    CAST(received_at AS TIMESTAMPTZ),
    $segment,
    spool_offset,
    problem,
    COALESCE(payload, CAST(document AS VARCHAR)),
    now()
FROM webhook_batch_checked
WHERE problem IS NOT NULL
ON CONFLICT DO NOTHING
RETURNING delivery_id;
