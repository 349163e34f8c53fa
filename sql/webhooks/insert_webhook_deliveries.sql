-- A batch's deliveries into events.webhook_deliveries; returns only the rows inserted.
-- The registered Arrow batch `webhook_batch`, each row with why it cannot land (NULL: it can).
-- One place decides, so a row goes to exactly one of webhook_deliveries and webhook_quarantine.
-- CASE evaluates the JSON path only on rows whose JSON is valid.
CREATE OR REPLACE TEMP TABLE webhook_batch_checked AS
SELECT
    *,
    CASE
        WHEN NOT json_valid(payload) THEN 'payload is not valid JSON for the warehouse'
        WHEN event IN ('push', 'issues', 'pull_request') AND (payload ->> '$.repository.full_name') IS NULL
            THEN event || ' delivery has no repository.full_name'
    END AS problem
FROM webhook_batch;

-- The lake partitions (UTC days received) of the batch's deliveries are to be written again.
INSERT INTO meta.lake_changes (table_name, day)
SELECT DISTINCT 'events.webhook_deliveries', CAST(timezone('UTC', CAST(received_at AS TIMESTAMPTZ)) AS DATE)
  FROM webhook_batch_checked
 WHERE problem IS NULL;

-- A redelivery already landed is skipped by its delivery id.
INSERT INTO events.webhook_deliveries
SELECT
    delivery_id,
    event,
    payload ->> '$.action',
    payload ->> '$.repository.full_name',
    CAST(received_at AS TIMESTAMPTZ),
    CAST(payload AS JSON),
    now()
FROM webhook_batch_checked
WHERE problem IS NULL
ON CONFLICT DO NOTHING
RETURNING delivery_id, repository_full_name;
