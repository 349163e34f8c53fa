-- The repositories named by the webhook deliveries loaded at or after $since, for a snapshot refresh.
SELECT DISTINCT repository_full_name
  FROM events.webhook_deliveries
 WHERE loaded_at >= $since AND repository_full_name IS NOT NULL
 ORDER BY repository_full_name;
