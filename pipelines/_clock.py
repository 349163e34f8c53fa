"""The pipeline's day: always the UTC date, whatever the host's time zone.

Report days, partitions, "yesterday" and the snapshot day are UTC dates on the service's side;
the local date differs from it for hours each day east or west of UTC (cron in Tokyo at 05:00
is still the previous day in UTC), so no module asks the host for its local date.
"""

from __future__ import annotations

from datetime import UTC, date, datetime


def utc_today() -> date:
    return datetime.now(UTC).date()
