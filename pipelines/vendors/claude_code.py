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


def claude_code_day(client: VendorClient, day: date) -> Fetched:
    """Every record of `day`, page by page (a page's cursor seen twice is Malformed: no loop)."""
    fetched = Fetched(_ENDPOINT, day, day)
    params: dict[str, Any] = {"starting_at": day.isoformat(), "limit": min(client.config.page_size, _MAX_PAGE)}
    seen: set[str] = set()
    while True:
        body = fetched.add(client.get(_ENDPOINT.path, params), client.vendor.title)
        if body.get("has_more") is not True:
            return fetched
        cursor = body.get("next_page")
        if not isinstance(cursor, str) or not cursor or cursor in seen:
            raise Malformed(
                client.vendor.title,
                f"{_ENDPOINT.path} of {day} said has_more without a new next_page cursor: its records stop there",
            )
        seen.add(cursor)
        params = {**params, "page": cursor}
