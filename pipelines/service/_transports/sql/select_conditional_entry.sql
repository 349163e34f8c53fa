SELECT etag, last_modified, body FROM conditional_cache WHERE key = ?
