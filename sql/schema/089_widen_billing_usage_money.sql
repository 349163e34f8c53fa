-- The billed usage's amounts, quantities and prices as wide as the service may send them: the
-- service's amounts have up to 15 digits, which DECIMAL(18,6) (12 before the point) cannot hold,
-- so they landed NULL. DECIMAL(38,6) holds 32 digits before the point; a value it still cannot
-- hold exactly lands NULL, kept in the row's extra and told as drift (pipelines/transform/billing_usage.py).
-- The tables were first created from their declarations (_columns_billing.py): a fresh warehouse
-- creates them after the migrations, already wide.
ALTER TABLE IF EXISTS billing.credit_usage ALTER COLUMN price_per_unit TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.credit_usage ALTER COLUMN gross_quantity TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.credit_usage ALTER COLUMN gross_amount TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.credit_usage ALTER COLUMN discount_quantity TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.credit_usage ALTER COLUMN discount_amount TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.credit_usage ALTER COLUMN net_quantity TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.credit_usage ALTER COLUMN net_amount TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.cost_center_usage ALTER COLUMN price_per_unit TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.cost_center_usage ALTER COLUMN gross_quantity TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.cost_center_usage ALTER COLUMN gross_amount TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.cost_center_usage ALTER COLUMN discount_quantity TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.cost_center_usage ALTER COLUMN discount_amount TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.cost_center_usage ALTER COLUMN net_quantity TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.cost_center_usage ALTER COLUMN net_amount TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.usage_summary ALTER COLUMN price_per_unit TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.usage_summary ALTER COLUMN gross_quantity TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.usage_summary ALTER COLUMN gross_amount TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.usage_summary ALTER COLUMN discount_quantity TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.usage_summary ALTER COLUMN discount_amount TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.usage_summary ALTER COLUMN net_quantity TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.usage_summary ALTER COLUMN net_amount TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.product_usage ALTER COLUMN quantity TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.product_usage ALTER COLUMN price_per_unit TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.product_usage ALTER COLUMN gross_amount TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.product_usage ALTER COLUMN discount_amount TYPE DECIMAL(38,6);
ALTER TABLE IF EXISTS billing.product_usage ALTER COLUMN net_amount TYPE DECIMAL(38,6);
