DELETE FROM conditional_cache WHERE key = ?
