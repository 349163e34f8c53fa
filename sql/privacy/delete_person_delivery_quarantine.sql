-- Deliveries set aside by the loader that name the person in a person field (published whole).
DELETE FROM events.webhook_quarantine
 WHERE list_contains(CAST($delivery_ids AS VARCHAR[]), delivery_id)
RETURNING 1
