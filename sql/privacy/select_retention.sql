-- The first day kept and when retention was last applied (no row: never applied).
SELECT kept_from, applied_at FROM meta.retention WHERE store = 'user-level'
