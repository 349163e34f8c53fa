-- Retention of webhook payloads: deliveries received before $cutoff (since $since, or loaded
-- since the last retention), their lake partitions marked to be written again.
INSERT INTO meta.lake_changes (table_name, day)
SELECT DISTINCT 'events.webhook_deliveries', CAST(timezone('UTC', received_at) AS DATE)
  FROM events.webhook_deliveries
 WHERE received_at < $cutoff_at AND (received_at >= $since_at OR loaded_at >= $applied_at);
DELETE FROM events.webhook_deliveries
 WHERE received_at < $cutoff_at AND (received_at >= $since_at OR loaded_at >= $applied_at)
RETURNING 1
