"""The billing state of an enterprise or organization now: cost centers, budgets and their
per-user states, and an organization's seat breakdown and policies (docs/billing.md).

Every answer is decoded with money as `Decimal` (never a float). Budgets and user states are
paged by `page`/`per_page` and say `has_next_page` and `total_count`: the walk stops on the
first page saying there is no next one. A listing the walk cannot trust is refused with
ListingRefused (a ServiceError) rather than walked forever or landed twice: a page repeating an
item of an earlier one, a page saying another follows after all the items `total_count` counts
or after the pages it and the page size imply, or beyond MAX_PAGES. Errors are the client's:
403 is PermissionDenied, 404 NotFound.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterator, Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from pipelines.service.billing_wire import Dialect, Scope, billing_path, wire_name
from pipelines.service.errors import MalformedResponse, ServiceError

if TYPE_CHECKING:
    from pipelines.service._answer import Answer
    from pipelines.service.client import ServiceClient

__all__ = [
    "MAX_PAGES",
    "PAGE_SIZE",
    "ListingRefused",
    "decimal_json",
    "get_org_billing",
    "list_budget_user_states",
    "list_budgets",
    "list_cost_centers",
    "paged",
]

Record = dict[str, Any]
PAGE_SIZE = 100  # the most the budgets listing gives a page
MAX_PAGES = 1_000  # 100,000 budgets or user states of a budget: far past any enterprise's, short of a loop


class ListingRefused(ServiceError):
    """A paged listing whose pages cannot be walked to one set of items: it repeats an item, or
    goes on past its own count or MAX_PAGES."""


def decimal_json(answer: Answer) -> Any:
    """The answer's JSON with every non-integer number a Decimal (money is never a float)."""
    try:
        return json.loads(answer.body, parse_float=Decimal)
    except ValueError:
        raise MalformedResponse(
            method=answer.method,
            url=answer.url,
            status=answer.status,
            message=f"the answer is not JSON ({len(answer.body):,} bytes)",
        ) from None


def _object(answer: Answer) -> Mapping[str, Any]:
    body = decimal_json(answer)
    if not isinstance(body, Mapping):
        raise MalformedResponse(
            method=answer.method, url=answer.url, status=answer.status, message="the answer is not a JSON object"
        )
    return body


def _items(answer: Answer, body: Mapping[str, Any], key: str) -> list[Record]:
    items = body.get(key)
    if not isinstance(items, list):
        raise MalformedResponse(
            method=answer.method, url=answer.url, status=answer.status, message=f"the answer holds no {key!r} array"
        )
    return items


def paged(fetch: Callable[[int], tuple[list[Record], bool, int | None]], *, what: str, key: str) -> Iterator[Record]:
    """Every item of a listing paged by number: `fetch(page)` answers (items, has_next_page,
    total_count); an item is known by its `key` field (by its whole text when it has none).
    Stops at the first page without a next one, or an empty page. Raises ListingRefused at a page
    repeating an item of an earlier page (the listing moved under the walk, or loops), or saying
    another follows after all the items total_count counts, after the pages total_count implies
    at the first page's size, or after MAX_PAGES."""
    seen: set[str] = set()
    limit = MAX_PAGES
    page = 1
    while True:
        items, has_next, total = fetch(page)
        for item in items:
            identity = _identity(item, key)
            if identity in seen:
                raise ListingRefused(f"{what}: page {page} repeats {key} {identity!r} of an earlier page")
            seen.add(identity)
        yield from items
        if not has_next or not items:
            return
        if total is not None:
            if len(seen) >= total:
                raise ListingRefused(f"{what}: page {page} says another follows after all {total} items it counts")
            if page == 1:
                limit = min(limit, math.ceil(total / len(items)))
        if page >= limit:
            raise ListingRefused(
                f"{what}: page {page} says another follows after the {limit} pages a listing of "
                f"{total if total is not None else 'uncounted'} items may take (at most {MAX_PAGES})"
            )
        page += 1


def _identity(item: object, key: str) -> str:
    value = item.get(key) if isinstance(item, Mapping) else None
    return value if isinstance(value, str) else json.dumps(item, sort_keys=True, default=str)


def _page(client: ServiceClient, path: str, key: str, params: Mapping[str, Any]) -> Callable[[int], Any]:
    def fetch(page: int) -> tuple[list[Record], bool, int | None]:
        answer = client.get(path=path, params={**params, "per_page": PAGE_SIZE, "page": page})
        body = _object(answer)
        total = body.get("total_count")
        has_next = body.get("has_next_page") is True
        return _items(answer, body, key), has_next, total if isinstance(total, int) else None

    return fetch


def list_cost_centers(client: ServiceClient, *, enterprise: str) -> list[Record]:
    """Every cost center of the enterprise (active and deleted), with its resources."""
    answer = client.get(path=_path(client, "enterprise", enterprise, "cost_centers"))
    return _items(answer, _object(answer), wire_name(_dialect(client), "costCenters"))


def list_budgets(client: ServiceClient, *, enterprise: str) -> list[Record]:
    """Every budget of the enterprise, page by page."""
    path = _path(client, "enterprise", enterprise, "budgets")
    return list(paged(_page(client, path, "budgets", {}), what=f"GET {path}", key="id"))


def list_budget_user_states(client: ServiceClient, *, enterprise: str, budget_id: str) -> list[Record]:
    """Every user state of one budget, page by page."""
    path = _path(client, "enterprise", enterprise, "budget_user_states", budget_id=budget_id)
    return list(paged(_page(client, path, "user_states", {}), what=f"GET {path}", key="user"))


def get_org_billing(client: ServiceClient, *, org: str) -> Mapping[str, Any]:
    """The organization's seat breakdown and policies (`/orgs/{org}/{product}/billing`)."""
    return _object(client.get(path=_path(client, "organization", org, "seat_billing")))


def _path(client: ServiceClient, scope: Scope, name: str, endpoint: str, **ids: str) -> str:
    quoted = {key: quote(value, safe="") for key, value in ids.items()}
    return billing_path(_dialect(client), scope, quote(name, safe=""), endpoint, **quoted)


def _dialect(client: ServiceClient) -> Dialect:
    return "github" if client.dialect.name == "github" else "service"
