"""The columns of the events tables, as their DDL says them (pipelines/transform/columns.py reads them)."""

from __future__ import annotations

EVENTS: dict[str, tuple[str, ...]] = {
    "events.webhook_deliveries": (
        "delivery_id VARCHAR",
        "event VARCHAR NOT NULL",
        "action VARCHAR",
        "repository_full_name VARCHAR",
        "received_at TIMESTAMP WITH TIME ZONE NOT NULL",
        "payload JSON NOT NULL",
        "loaded_at TIMESTAMP WITH TIME ZONE NOT NULL",
    ),
    "events.webhook_quarantine": (
        "delivery_id VARCHAR",
        "event VARCHAR NOT NULL",
        "received_at TIMESTAMP WITH TIME ZONE NOT NULL",
        "segment VARCHAR NOT NULL",
        "spool_offset BIGINT NOT NULL",
        "reason VARCHAR NOT NULL",
        "payload_text VARCHAR NOT NULL",
        "loaded_at TIMESTAMP WITH TIME ZONE NOT NULL",
    ),
    "events.spool_offsets": (
        "segment VARCHAR",
        "offset BIGINT NOT NULL",
        "updated_at TIMESTAMP WITH TIME ZONE NOT NULL",
    ),
}
