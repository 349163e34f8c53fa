-- Spooled deliveries the warehouse cannot store as JSON (e.g. a lone surrogate escape, which
-- Python's parser accepts and DuckDB's does not), kept with where they came from and why, so
-- one bad delivery never blocks the loader.
CREATE TABLE IF NOT EXISTS events.webhook_quarantine (
    delivery_id  VARCHAR PRIMARY KEY,
    event        VARCHAR NOT NULL,
    received_at  TIMESTAMPTZ NOT NULL,
    segment      VARCHAR NOT NULL,
    spool_offset BIGINT NOT NULL,
    reason       VARCHAR NOT NULL,
    payload_text VARCHAR NOT NULL,
    loaded_at    TIMESTAMPTZ NOT NULL
);
