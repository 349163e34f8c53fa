"""Checked after each spool load, over the deliveries it inserted."""

from __future__ import annotations

from pathlib import Path

from pipelines.warehouse.checks import Check

_SQL = Path(__file__).parent / "sql"

EVENT_CHECKS: tuple[Check, ...] = (
    Check(
        "deliveries_name_event_and_repository",
        ("events", "webhook_deliveries"),
        _SQL / "count_deliveries_without_event.sql",
        "Each delivery names its event kind, and its repository for repository events.",
    ),
)
