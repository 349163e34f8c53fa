-- A batch's deliveries into events.webhook_deliveries; returns only the rows inserted.
-- The registered Arrow batch `webhook_batch` (DuckDB reads its strings in place) is copied once,
-- each payload as a JSON document, or as sent where DuckDB's JSON refuses it (a NULL document).
-- A JSON function holds every document of a vector parsed until the statement moves on (7 to 33
-- times the payload's bytes, by shape), so each statement here parses each payload at most once,
-- and the insert none (docs/webhooks.md, "Loader memory"). A delivery naming an erased person
-- (`erased`) is passed: neither parsed nor kept anywhere.
CREATE OR REPLACE TEMP TABLE webhook_batch_checked AS
-- A payload the receiver now refuses (`refused`: a repeated key, in a segment written before it
-- refused them) is never parsed here, so no reading of it lands: it is kept as sent.
WITH parsed AS (
    SELECT *, CASE WHEN refused IS NULL THEN TRY_CAST(payload AS JSON) END AS document
    FROM webhook_batch WHERE NOT erased
)
SELECT
    delivery_id,
    event,
    received_at,
    spool_offset,
    document,
    CASE WHEN document IS NULL THEN payload END AS payload,
    CAST(NULL AS VARCHAR) AS action,
    CAST(NULL AS VARCHAR) AS repository_full_name,
    refused AS problem
FROM parsed;

-- Each row's fields, and why it cannot land (NULL: it can). One place decides, so a row goes to
-- exactly one of webhook_deliveries and webhook_quarantine. A batch is one segment's, so its
-- spool offsets are unique.
UPDATE webhook_batch_checked
   SET action = found[1],
       repository_full_name = found[2],
       problem = CASE
           WHEN problem IS NOT NULL THEN problem
           WHEN document IS NULL THEN 'payload is not valid JSON for the warehouse'
           WHEN event IN ('push', 'issues', 'pull_request') AND found[2] IS NULL
               THEN event || ' delivery has no repository.full_name'
       END
  FROM (SELECT spool_offset, json_extract_string(document, ['$.action', '$.repository.full_name']) AS found
          FROM webhook_batch_checked) AS extracted
 WHERE extracted.spool_offset = webhook_batch_checked.spool_offset;

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
    action,
    repository_full_name,
    CAST(received_at AS TIMESTAMPTZ),
    document,
    now()
FROM webhook_batch_checked
WHERE problem IS NULL
ON CONFLICT DO NOTHING
RETURNING delivery_id, repository_full_name;
