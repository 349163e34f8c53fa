-- sqlite3: validators and bodies of conditional GETs, keyed by sha256(credential identity, URL).
CREATE TABLE IF NOT EXISTS conditional_cache (
    key TEXT PRIMARY KEY,
    etag TEXT,
    last_modified TEXT,
    body BLOB NOT NULL
)
