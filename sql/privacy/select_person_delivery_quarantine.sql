-- Deliveries set aside by the loader whose text holds the person's login or user id: candidates,
-- as select_person_deliveries.sql.
SELECT delivery_id, event, payload_text
  FROM events.webhook_quarantine
 WHERE ($login IS NOT NULL AND contains(lower(payload_text), $login))
    OR ($user_id IS NOT NULL AND contains(payload_text, $user_id))
