-- Retention applied: the days before $cutoff are gone from every store.
INSERT OR REPLACE INTO meta.retention (store, kept_from, applied_at) VALUES ('user-level', $cutoff, now())
