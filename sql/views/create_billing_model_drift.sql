-- bi.billing_model_drift
-- Grain: one row per scope, scope_name and billed model name the declared map lacks
-- (billing.model_names, pipelines/transform/billing_models.py): a model the service bills that
-- no declaration ties to a usage-report model id, so bi.cost_daily's model_id is NULL on its
-- lines. Add it to the map. From the bill (billing.credit_usage) and the usage export
-- (billing.user_usage): first and last day billed, days, and its net on the bill.
CREATE OR REPLACE VIEW bi.billing_model_drift AS
WITH billed AS (
    SELECT scope, scope_name, day, model, net_amount FROM billing.credit_usage
    UNION ALL
    SELECT scope, scope_name, day, model, CAST(NULL AS DECIMAL(18, 6)) FROM billing.user_usage
)
SELECT b.scope, b.scope_name, b.model, min(b.day) AS first_day, max(b.day) AS last_day,
       count(DISTINCT b.day) AS days, coalesce(sum(b.net_amount), 0) AS net_amount
FROM billed AS b
LEFT JOIN billing.model_names AS m ON m.billing_model = b.model
WHERE coalesce(b.model, '') <> '' AND m.billing_model IS NULL
GROUP BY ALL;

COMMENT ON VIEW bi.billing_model_drift IS 'One row per scope and billed model name the declared map (pipelines/transform/billing_models.py) lacks: first and last day billed, days and its net on the bill. Add the name to the map.';
