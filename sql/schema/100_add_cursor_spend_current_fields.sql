-- vendors.cursor_spend as Cursor's current Admin API page has it: the member's encoded user id,
-- the overall spend (on-demand and included) and the per-user limits. A warehouse made since
-- creates the table from its declaration already so (pipelines/transform/_columns_vendors.py).
ALTER TABLE IF EXISTS vendors.cursor_spend ADD COLUMN IF NOT EXISTS user_id VARCHAR;
ALTER TABLE IF EXISTS vendors.cursor_spend ADD COLUMN IF NOT EXISTS overall_spend_cents DECIMAL(38,6);
ALTER TABLE IF EXISTS vendors.cursor_spend ADD COLUMN IF NOT EXISTS monthly_limit_dollars DECIMAL(18,6);
ALTER TABLE IF EXISTS vendors.cursor_spend ADD COLUMN IF NOT EXISTS effective_per_user_limit_dollars DECIMAL(18,6);
