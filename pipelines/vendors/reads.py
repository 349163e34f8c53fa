"""Every fetch a run makes of one vendor, in order, lazily (each lands before the next is asked):
its usage of the days wanted (Claude Code a day a request; Cursor a window of contiguous days),
and its state now (Cursor's members first, its spend last); and the cheapest request of each
endpoint, for `metrics-etl check`. A vendor is one entry of READS."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta

from pipelines.vendors.claude_code import claude_code_day
from pipelines.vendors.client import Answer, VendorClient
from pipelines.vendors.cursor import daily_usage, epoch_ms, members, spend
from pipelines.vendors.fetched import Fetched
from pipelines.vendors.wire import ENDPOINTS

__all__ = ["READS", "Reads", "ranges", "reads"]

CLAUDE_CODE_PATH = ENDPOINTS["claude_code"].path


def ranges(days: Iterable[date]) -> list[tuple[date, date]]:
    """The days as runs of consecutive days (first, last), in order."""
    out: list[tuple[date, date]] = []
    for day in sorted(set(days)):
        if out and out[-1][1] + timedelta(days=1) == day:
            out[-1] = (out[-1][0], day)
        else:
            out.append((day, day))
    return out


def _claude_code(client: VendorClient, days: list[date]) -> Iterator[Fetched]:
    for day in sorted(set(days)):
        yield claude_code_day(client, day)


def _cursor(client: VendorClient, days: list[date]) -> Iterator[Fetched]:
    yield members(client)
    for first, last in ranges(days):
        yield from daily_usage(client, first, last)
    yield spend(client)


_DAY_MS = 86_400_000
Probe = Callable[[VendorClient, date], Answer]


@dataclass(frozen=True)
class Reads:
    fetches: Callable[[VendorClient, list[date]], Iterator[Fetched]]
    probes: dict[str, Probe]  # endpoint -> its cheapest request, of one day where it takes one


READS: dict[str, Reads] = {
    "claude_code": Reads(
        _claude_code,
        {"claude_code": lambda c, day: c.get(CLAUDE_CODE_PATH, {"starting_at": day.isoformat(), "limit": 1})},
    ),
    "cursor": Reads(
        _cursor,
        {
            "members": lambda c, day: c.get(ENDPOINTS["members"].path),
            "daily_usage": lambda c, day: c.post(
                ENDPOINTS["daily_usage"].path, {"startDate": epoch_ms(day), "endDate": epoch_ms(day) + _DAY_MS - 1}
            ),
            "spend": lambda c, day: c.post(ENDPOINTS["spend"].path, {"page": 1, "pageSize": 1}),
        },
    ),
}


def reads(client: VendorClient, days: list[date]) -> Iterator[Fetched]:
    """The vendor's fetches for the usage `days` (none asked twice), then its state."""
    return READS[client.vendor.name].fetches(client, days)
