"""Cursor's Admin API: the team's members (`GET /teams/members`), its daily usage data over a
range (`POST /teams/daily-usage-data`, epoch milliseconds, at most `window_days` a request: a
longer range is split), and each member's spend of the current billing cycle (`POST
/teams/spend`, paged by page number up to `totalPages`) (docs/vendors.md)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from pipelines.vendors.client import VendorClient
from pipelines.vendors.errors import Malformed
from pipelines.vendors.fetched import Fetched
from pipelines.vendors.wire import CURSOR, ENDPOINTS

__all__ = ["daily_usage", "epoch_ms", "members", "spend", "windows"]


def _today() -> date:
    return datetime.now(UTC).date()


_DAY_MS = 86_400_000
_PAGE_SIZE = 100
_MAX_PAGES = 10_000  # a team of a million members: beyond, the answer's totalPages is not believed


def epoch_ms(day: date) -> int:
    """The day's start, 00:00 UTC, in milliseconds since the epoch (how Cursor writes a date)."""
    return int(datetime.combine(day, time(), tzinfo=UTC).timestamp() * 1000)


def windows(start: date, end: date, days: int = CURSOR.window_days) -> list[tuple[date, date]]:
    """`start..end` cut into ranges of at most `days` days, in order."""
    out = []
    while start <= end:
        last = min(end, start + timedelta(days=days - 1))
        out.append((start, last))
        start = last + timedelta(days=1)
    return out


def members(client: VendorClient) -> Fetched:
    """The team's members now: the fetch covers the vendor's day (its clock, else ours)."""
    endpoint = ENDPOINTS["members"]
    fetched = Fetched(endpoint, _today(), _today())
    fetched.add(client.get(endpoint.path), client.vendor.title)
    return fetched.on_its_day()


def daily_usage(client: VendorClient, start: date, end: date) -> list[Fetched]:
    """One fetch per window; each covers its days, from the first's 00:00 to the last's end."""
    endpoint = ENDPOINTS["daily_usage"]
    out = []
    for first, last in windows(start, end):
        fetched = Fetched(endpoint, first, last)
        body = {"startDate": epoch_ms(first), "endDate": epoch_ms(last) + _DAY_MS - 1}
        fetched.add(client.post(endpoint.path, body), client.vendor.title)
        out.append(fetched)
    return out


def spend(client: VendorClient) -> Fetched:
    """Every page of the members' spend in the current cycle (the first page's cycle start in the
    envelope), on the vendor's day."""
    endpoint = ENDPOINTS["spend"]
    fetched = Fetched(endpoint, _today(), _today())
    page = 1
    while True:
        body = fetched.add(client.post(endpoint.path, {"page": page, "pageSize": _PAGE_SIZE}), client.vendor.title)
        pages = body.get("totalPages")
        if pages is None or (isinstance(pages, int) and not isinstance(pages, bool) and page >= pages):
            return fetched.on_its_day()
        if not isinstance(pages, int) or isinstance(pages, bool) or pages > _MAX_PAGES:
            raise Malformed(client.vendor.title, f"{endpoint.path} said totalPages {pages!r}: not a page count")
        page += 1
