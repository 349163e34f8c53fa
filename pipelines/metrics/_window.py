"""The days or periods a question asks for, and its scope, checked against what the tier holds:
each mistake one line naming what is accepted."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from pipelines.metrics._model import Metric, MetricsError

PERIOD_DAYS = 28
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_SHOWN_ENDS = 4  # period ends a refusal names


@dataclass(frozen=True)
class Bounds:
    """The tier's first and newest reported day, and the newest day of its periods."""

    first: date | None
    newest: date | None
    period_end: date | None

    def period_ends(self) -> list[date]:
        """Every period's newest day, newest first: 28 days apart back from the newest."""
        if self.period_end is None or self.first is None:
            return []
        ends = []
        end = self.period_end
        while end >= self.first:
            ends.append(end)
            end -= timedelta(days=PERIOD_DAYS)
        return ends


def parse_day(text: str, *, what: str = "day") -> date:
    """A day as YYYY-MM-DD exactly, or one line saying so (Python's ISO parser also takes
    '20261101', and a padded day is not the form the catalog names)."""
    try:
        if not _DAY.fullmatch(text):
            raise ValueError(text)
        return date.fromisoformat(text)
    except (ValueError, TypeError):
        raise MetricsError(f"malformed range: {what} {text!r} is not a day: accepted: YYYY-MM-DD") from None


def period_of(end: date) -> tuple[date, date]:
    return end - timedelta(days=PERIOD_DAYS - 1), end


def window(
    metric: Metric, bounds: Bounds, *, start: date | None, end: date | None, period: date | None
) -> tuple[date, date]:
    """The first and last day (a day metric) or period end (a period metric) asked for: a period
    (by its newest day) or a range of days, the latest 28 days or period when neither is given."""
    if period is not None and (start is not None or end is not None):
        raise MetricsError("malformed range: give a period or a range of days (start, end), not both")
    if start is not None and end is not None and start > end:
        raise MetricsError(f"malformed range {start}..{end}: the first day must not be after the last")
    newest = bounds.newest or date.today()
    if metric.grain == "day":
        if period is not None:
            return period_of(period)
        last = end or (newest if start is None else max(start, newest))
        return (start or last - timedelta(days=PERIOD_DAYS - 1)), last
    ends = bounds.period_ends()
    if period is not None:
        if period not in ends:
            raise MetricsError(f"no 28-day period of the tier ends on {period}: {_accepted_ends(ends)}")
        return period, period
    if start is None and end is None:
        latest = ends[0] if ends else newest
        return latest, latest
    return start or (bounds.first or newest), end or (bounds.period_end or newest)


def check_periods(metric: Metric, bounds: Bounds, first: date, second: date) -> None:
    """Two periods a comparison may weigh: apart, and (a period metric) periods of the tier."""
    if abs((second - first).days) < PERIOD_DAYS:
        raise MetricsError(
            f"malformed range: the periods ending {first} and {second} overlap: give newest days at least "
            f"{PERIOD_DAYS} days apart"
        )
    if metric.grain == "period":
        ends = bounds.period_ends()
        for end in (first, second):
            if end not in ends:
                raise MetricsError(f"no 28-day period of the tier ends on {end}: {_accepted_ends(ends)}")


def _accepted_ends(ends: list[date]) -> str:
    if not ends:
        return "the tier holds no period yet"
    shown = ", ".join(str(end) for end in ends[:_SHOWN_ENDS])
    more = ", …" if len(ends) > _SHOWN_ENDS else ""
    return f"accepted: {shown}{more} (every {PERIOD_DAYS} days back from the newest)"


def parse_scope(text: str | None, scopes: list[tuple[str, str]]) -> tuple[str | None, str | None]:
    """`organization:<slug>`, `enterprise:<slug>` or a bare slug (either kind) → (scope, scope_name)."""
    if text is None or not text.strip():
        return None, None
    kind, _, name = text.strip().rpartition(":")
    matches = [(s, n) for s, n in scopes if n == name and (not kind or s == kind)]
    if not matches:
        named = ", ".join(f"{s}:{n}" for s, n in scopes) or "none yet"
        raise MetricsError(f"unknown scope {text!r}: accepted: {named}")
    if len(matches) > 1:
        raise MetricsError(
            f"scope {text!r} is both {' and '.join(f'{s}:{n}' for s, n in matches)}: accepted: one of them"
        )
    return matches[0]
