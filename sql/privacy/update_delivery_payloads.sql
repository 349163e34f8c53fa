-- Other people's deliveries whose text held the person's login, written again with it replaced
-- ($payloads[i] for $delivery_ids[i]), with the columns the loader takes from the payload taken
-- again (a repository `dev-00018/tools` is in both); their lake partitions marked to be written again.
INSERT INTO meta.lake_changes (table_name, day)
SELECT DISTINCT 'events.webhook_deliveries', CAST(timezone('UTC', received_at) AS DATE)
  FROM events.webhook_deliveries
 WHERE list_contains(CAST($delivery_ids AS VARCHAR[]), delivery_id);
UPDATE events.webhook_deliveries AS d
   SET payload = CAST(t.payload AS JSON),
       action = json_extract_string(t.payload, '$.action'),
       repository_full_name = json_extract_string(t.payload, '$.repository.full_name')
  FROM (SELECT unnest(CAST($delivery_ids AS VARCHAR[])) AS delivery_id,
               unnest(CAST($payloads AS VARCHAR[])) AS payload) AS t
 WHERE d.delivery_id = t.delivery_id
RETURNING 1
