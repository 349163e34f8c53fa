SELECT key, body FROM conditional_cache
