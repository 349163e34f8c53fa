-- Loaded webhook deliveries whose payload text holds the person's login or user id anywhere: the
-- candidates pipelines/warehouse/people.py then tests field by field (a repository whose id is the
-- user id is found here and kept there).
SELECT delivery_id, event, CAST(payload AS VARCHAR)
  FROM events.webhook_deliveries
 WHERE ($login IS NOT NULL AND contains(lower(CAST(payload AS VARCHAR)), $login))
    OR ($user_id IS NOT NULL AND contains(CAST(payload AS VARCHAR), $user_id))
