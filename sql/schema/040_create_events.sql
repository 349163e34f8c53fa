-- Webhook deliveries, one row per delivery id (a redelivery is not a second row), and the
-- loader's committed position in each spool segment, written in the same transaction as the
-- rows so a crash can neither lose nor repeat a delivery.
CREATE SCHEMA IF NOT EXISTS events;

CREATE TABLE IF NOT EXISTS events.webhook_deliveries (
    delivery_id          VARCHAR PRIMARY KEY,
    event                VARCHAR NOT NULL,
    action               VARCHAR,
    repository_full_name VARCHAR,
    received_at          TIMESTAMPTZ NOT NULL,
    payload              JSON NOT NULL,
    loaded_at            TIMESTAMPTZ NOT NULL
);

CREATE TABLE IF NOT EXISTS events.spool_offsets (
    segment    VARCHAR PRIMARY KEY,
    "offset"   BIGINT NOT NULL,
    updated_at TIMESTAMPTZ NOT NULL
);
