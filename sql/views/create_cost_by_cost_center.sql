-- bi.cost_by_cost_center
-- Grain: one row per scope, scope_name, day, cost_center_id, meter, product, SKU and model: the
-- enterprise's bill per cost center (billing.cost_center_usage, the usage answer filtered by
-- each cost center), and cost_center_id 'none' for usage in no cost center, so a day's rows add
-- up to its bill (bi.cost_daily). cost_center_name is the name on the enterprise's newest
-- cost-center snapshot (billing.cost_centers: a renamed cost center reads under its new name in
-- every day), else the name the usage answer gave; 'no cost center' for 'none'.
CREATE OR REPLACE VIEW bi.cost_by_cost_center AS
WITH newest AS (
    SELECT enterprise, max(snapshot_day) AS snapshot_day FROM billing.cost_centers GROUP BY ALL
), names AS (
    SELECT c.enterprise, c.cost_center_id, c.name
    FROM billing.cost_centers AS c
    JOIN newest AS n USING (enterprise, snapshot_day)
)
SELECT
    u.scope,
    u.scope_name,
    u.day,
    u.cost_center_id,
    CASE WHEN u.cost_center_id = 'none' THEN 'no cost center' ELSE coalesce(n.name, u.cost_center_name) END
        AS cost_center_name,
    u.meter,
    u.product,
    u.sku,
    u.model,
    u.gross_amount,
    u.discount_amount,
    u.net_amount,
    u.net_quantity
FROM billing.cost_center_usage AS u
LEFT JOIN names AS n ON n.enterprise = u.scope_name AND n.cost_center_id = u.cost_center_id AND u.scope = 'enterprise';

COMMENT ON VIEW bi.cost_by_cost_center IS 'One row per scope, day, cost center (''none'': usage in no cost center), meter, product, SKU and model: gross, discount and net amounts, and a day''s rows add up to its bill in bi.cost_daily. Names from the newest cost-center snapshot.';
