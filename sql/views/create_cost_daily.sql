-- bi.cost_daily
-- Grain: one row per scope, scope_name, day, meter, product, SKU and model: THE BILL, as the
-- service's AI-credit usage (meter 'ai_credit', from 2026-06-01) and premium-request usage
-- (meter 'premium_request', the months before) answer it per day, unfiltered (billing.credit_usage).
-- gross - discount = net, quantities (in unit_type: 'ai-credits', 'requests') and amounts (US
-- dollars, DECIMAL: sums are exact to the cent) alike; the discount is the seats' monthly
-- included allowance. month_closed: the service had closed the day's month when it was fetched
-- (00:00 UTC on the 4th of the next month); an open month's days may still grow with late usage
-- and are fetched again until it closes. model is the bill's name; model_id the usage reports'
-- id for it (billing.model_names, declared in pipelines/transform/billing_models.py; NULL for a
-- model no usage report names, or one the map lacks: bi.billing_model_drift lists those).
-- A scope's enterprise bill already holds its organizations': never add the two scopes.
CREATE OR REPLACE VIEW bi.cost_daily AS
SELECT
    u.scope,
    u.scope_name,
    u.day,
    u.meter,
    u.product,
    u.sku,
    u.model,
    m.model_id,
    u.unit_type,
    u.gross_quantity,
    u.gross_amount,
    u.discount_quantity,
    u.discount_amount,
    u.net_quantity,
    u.net_amount,
    u.month_closed
FROM billing.credit_usage AS u
LEFT JOIN billing.model_names AS m ON m.billing_model = u.model;

COMMENT ON VIEW bi.cost_daily IS 'One row per scope, day, meter (ai_credit, premium_request), product, SKU and model: the bill''s gross, discount (included allowance) and net quantities and amounts (DECIMAL dollars, exact), whether the month was closed when fetched, and the usage reports'' model id.';
