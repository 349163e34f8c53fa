-- Deliveries set aside whose text held the person's login, with it replaced (published whole).
UPDATE events.webhook_quarantine AS q
   SET payload_text = t.payload
  FROM (SELECT unnest(CAST($delivery_ids AS VARCHAR[])) AS delivery_id,
               unnest(CAST($payloads AS VARCHAR[])) AS payload) AS t
 WHERE q.delivery_id = t.delivery_id
RETURNING 1
