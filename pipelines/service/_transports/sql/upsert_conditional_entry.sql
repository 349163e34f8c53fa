INSERT OR REPLACE INTO conditional_cache (key, etag, last_modified, body) VALUES (?, ?, ?, ?)
