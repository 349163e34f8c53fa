"""Claude Code's analytics of one UTC day: `GET /v1/organizations/usage_report/claude_code`,
`starting_at` the day, paged by the opaque `next_page` cursor while `has_more` (docs/vendors.md)."""

from __future__ import annotations

from datetime import date
from typing import Any

from pipelines.vendors.client import VendorClient
from pipelines.vendors.errors import Malformed
from pipelines.vendors.fetched import Fetched
from pipelines.vendors.wire import ENDPOINTS

__all__ = ["claude_code_day"]

_ENDPOINT = ENDPOINTS["claude_code"]
_MAX_PAGE = 1000  # the reference's maximum `limit`
# One record per person a day: an organization of a million people. A cursor leading past it is
# a loop the seen cursors miss (a new one each page), so the day fails instead of running on.
_MAX_PEOPLE = 1_000_000


def claude_code_day(client: VendorClient, day: date) -> Fetched:
    """Every record of `day`, page by page. No loop is followed: a cursor seen twice, a page
    without records that says has_more, or more pages than a million people fill is Malformed."""
    fetched = Fetched(_ENDPOINT, day, day)
    limit = min(client.config.page_size, _MAX_PAGE)
    params: dict[str, Any] = {"starting_at": day.isoformat(), "limit": limit}
    seen: set[str] = set()
    for _ in range(-(-_MAX_PEOPLE // limit)):
        before = len(fetched.records)
        body = fetched.add(client.get(_ENDPOINT.path, params), client.vendor.title)
        if body.get("has_more") is not True:
            return fetched
        cursor = body.get("next_page")
        if not isinstance(cursor, str) or not cursor or cursor in seen or len(fetched.records) == before:
            raise Malformed(
                client.vendor.title,
                f"{_ENDPOINT.path} of {day} said has_more without records or a new next_page cursor: "
                "its records stop there",
            )
        seen.add(cursor)
        params = {**params, "page": cursor}
    raise Malformed(
        client.vendor.title,
        f"{_ENDPOINT.path} of {day} said has_more past {_MAX_PEOPLE:,} records, more than one a person: "
        "its records stop there",
    )
