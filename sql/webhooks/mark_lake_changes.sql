-- The lake partitions (UTC days received) of the batch's deliveries are to be written again.
INSERT INTO meta.lake_changes (table_name, day)
SELECT DISTINCT 'events.webhook_deliveries', CAST(timezone('UTC', CAST(received_at AS TIMESTAMPTZ)) AS DATE)
  FROM webhook_batch_checked
 WHERE problem IS NULL;
