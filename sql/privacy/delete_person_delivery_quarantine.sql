-- Deliveries set aside by the loader whose text names the person (published whole).
DELETE FROM events.webhook_quarantine
 WHERE regexp_matches(payload_text, $pattern)
RETURNING 1
