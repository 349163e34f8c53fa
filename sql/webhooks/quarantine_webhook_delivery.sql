-- One delivery that failed to load even alone (the registered one-row batch `webhook_batch`),
-- set aside with the error as its reason, and the segment's position moved past it, in one
-- transaction: the deliveries behind it load. Nothing here parses the payload, which is what
-- may have failed, and nothing copies it more than once: NOT EXISTS rather than ON CONFLICT,
-- which holds about three more copies of a large row. Returns the row set aside: none for a
-- delivery already landed or already set aside, or naming an erased person.
INSERT INTO events.spool_offsets (segment, "offset", updated_at)
VALUES ($segment, $offset, now())
ON CONFLICT (segment) DO UPDATE SET "offset" = excluded."offset", updated_at = excluded.updated_at;
INSERT INTO events.webhook_quarantine
SELECT
    delivery_id,
    event,
    -- A received_at that is not a time may be the very failure: the row still needs one.
    COALESCE(TRY_CAST(received_at AS TIMESTAMPTZ), now()),
    $segment,
    spool_offset,
    $reason,
    payload,
    now()
FROM webhook_batch AS b
WHERE NOT b.erased
  AND NOT EXISTS (SELECT 1 FROM events.webhook_deliveries AS d WHERE d.delivery_id = b.delivery_id)
  AND NOT EXISTS (SELECT 1 FROM events.webhook_quarantine AS q WHERE q.delivery_id = b.delivery_id)
RETURNING delivery_id;
