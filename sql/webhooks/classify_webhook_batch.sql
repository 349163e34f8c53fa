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
