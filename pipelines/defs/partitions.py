"""Daily partitions keyed to the report's available day.

A report for day D exists once D has ended (UTC), so the newest usage partition is yesterday.
Snapshots record the service's state as it is now: their partitions are the days asked for
(pipelines/defs/snapshots/days.py). A vendor answers for today too: its partitions end today.
"""

from __future__ import annotations

from datetime import date, timedelta

import dagster as dg


def usage_days(*, start: date) -> dg.DailyPartitionsDefinition:
    return dg.DailyPartitionsDefinition(start_date=start.isoformat(), timezone="UTC")


def vendor_days(*, start: date) -> dg.DailyPartitionsDefinition:
    """The vendors' days: up to today, which a vendor answers for (provisional until its lag passed)."""
    return dg.DailyPartitionsDefinition(start_date=start.isoformat(), timezone="UTC", end_offset=1)


def trailing_days(*, newest: date, count: int) -> list[date]:
    """The newest available day and the `count` days before it, which may still change."""
    return [newest - timedelta(days=offset) for offset in range(count, -1, -1)]
