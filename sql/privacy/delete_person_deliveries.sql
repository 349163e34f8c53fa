-- Loaded webhook deliveries that name the person in a person field of their kind, and their lake
-- partitions (the UTC day each was received) marked to be written again.
INSERT INTO meta.lake_changes (table_name, day)
SELECT DISTINCT 'events.webhook_deliveries', CAST(timezone('UTC', received_at) AS DATE)
  FROM events.webhook_deliveries
 WHERE list_contains(CAST($delivery_ids AS VARCHAR[]), delivery_id);
DELETE FROM events.webhook_deliveries
 WHERE list_contains(CAST($delivery_ids AS VARCHAR[]), delivery_id)
RETURNING 1
