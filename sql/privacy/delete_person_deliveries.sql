-- Loaded webhook deliveries whose payload names the person, and their lake partitions (the UTC
-- day each was received) marked to be written again.
INSERT INTO meta.lake_changes (table_name, day)
SELECT DISTINCT 'events.webhook_deliveries', CAST(timezone('UTC', received_at) AS DATE)
  FROM events.webhook_deliveries
 WHERE regexp_matches(CAST(payload AS VARCHAR), $pattern);
DELETE FROM events.webhook_deliveries
 WHERE regexp_matches(CAST(payload AS VARCHAR), $pattern)
RETURNING 1
