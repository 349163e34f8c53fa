"""Every fetch a run makes of one vendor, in order, lazily (each lands before the next is asked):
its usage of the days wanted (Claude Code a day a request; Cursor a window of contiguous days),
and its state now (Cursor's members first, its spend last). A vendor is one entry of READS."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import date, timedelta

from pipelines.vendors.claude_code import claude_code_day
from pipelines.vendors.client import VendorClient
from pipelines.vendors.cursor import daily_usage, members, spend
from pipelines.vendors.fetched import Fetched

__all__ = ["READS", "ranges", "reads"]


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


READS: dict[str, Callable[[VendorClient, list[date]], Iterator[Fetched]]] = {
    "claude_code": _claude_code,
    "cursor": _cursor,
}


def reads(client: VendorClient, days: list[date]) -> Iterator[Fetched]:
    """The vendor's fetches for the usage `days` (none asked twice), then its state."""
    return READS[client.vendor.name](client, days)
