"""The pipeline's day: always the UTC date, whatever the host's time zone.

Report days, partitions, "yesterday" and the snapshot day are UTC dates on the service's side;
the local date differs from it for hours each day east or west of UTC (cron in Tokyo at 05:00
is still the previous day in UTC), so no module asks the host for its local date.
"""

from __future__ import annotations

import calendar
import re
from datetime import UTC, date, datetime

_DAY = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def utc_today() -> date:
    return datetime.now(UTC).date()


def parse_day(text: str) -> date:
    """A day written YYYY-MM-DD; ValueError says why `text` is not one, e.g. that the date does not exist."""
    match = _DAY.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"not a day YYYY-MM-DD: {text!r}")
    year, month, day = (int(part) for part in match.groups())
    if not 1 <= month <= 12:
        raise ValueError(f"{text.strip()} is not a date: months run from 01 to 12")
    days = calendar.monthrange(year, month)[1]
    if not 1 <= day <= days:
        raise ValueError(f"{text.strip()} is not a date: {calendar.month_name[month]} {year} has {days} days")
    return date(year, month, day)
