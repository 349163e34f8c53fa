"""Webhook receiver: verified deliveries, a durable append-only spool, and its loader."""
