"""The billing state's listings: budgets and user states walked page by page to the last, a
listing that never ends, repeats an item or pages past its count refused, money parsed as
Decimal, the paths of each dialect."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipelines.service import RetryPolicy, Secret, ServiceClient, ServiceConfig, ServiceError, TokenAuth
from pipelines.service.billing_state import (
    MAX_PAGES,
    ListingRefused,
    get_org_billing,
    list_budget_user_states,
    list_budgets,
    list_cost_centers,
    paged,
)

BASE = "http://127.0.0.1:9"


def _client(handler, tmp_path: Path, *, dialect: str = "service") -> ServiceClient:
    config = ServiceConfig(
        base_url=BASE,
        api_version="2026-03-10",
        dialect=dialect,
        etag_cache=tmp_path / "c.sqlite3",
        auth=TokenAuth(token=Secret("tok")),
    )
    return ServiceClient(config=config, transport=httpx.MockTransport(handler), retry=RetryPolicy(max_attempts=1))


def _budgets(total: int, seen: list[str]):
    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.path)
        page, per_page = int(request.url.params["page"]), int(request.url.params["per_page"])
        ids = range((page - 1) * per_page, min(page * per_page, total))
        body = {
            "budgets": [{"id": f"b-{i}", "budget_amount": 10, "consumed_amount": 0.1} for i in ids],
            "has_next_page": page * per_page < total,
            "total_count": total,
        }
        return httpx.Response(200, json=body)

    return handler


def test_budgets_are_walked_to_the_last_page_with_their_amounts_decimal(tmp_path):
    seen: list[str] = []
    with _client(_budgets(230, seen), tmp_path, dialect="github") as client:
        budgets = list_budgets(client, enterprise="big")
    assert [b["id"] for b in budgets] == [f"b-{i}" for i in range(230)]
    assert seen == ["/enterprises/big/settings/billing/budgets"] * 3
    assert budgets[0]["consumed_amount"] == Decimal("0.1") and isinstance(budgets[0]["consumed_amount"], Decimal)


def test_a_listing_whose_pages_never_end_is_refused():
    def endless(page: int):
        return [{"id": str(page)}], True, 3

    with pytest.raises(ServiceError, match="another follows after all 3 items"):
        list(paged(endless, what="GET budgets", key="id"))


def test_an_empty_page_ends_a_listing_that_says_more_follow():
    pages = {1: ([{"id": "a"}], True, None), 2: ([], True, None)}
    assert list(paged(pages.__getitem__, what="x", key="id")) == [{"id": "a"}]


def _listing(items: list[dict[str, object]], size: int, total: int | None):
    def fetch(page: int):
        chunk = items[(page - 1) * size : page * size]
        return chunk, page * size < len(items), total

    return fetch


@given(count=st.integers(0, 450), size=st.integers(1, 120))
def test_an_honest_listing_is_walked_to_every_item_once(count, size):
    items = [{"id": f"b-{i}"} for i in range(count)]
    assert list(paged(_listing(items, size, count), what="x", key="id")) == items


@given(count=st.integers(2, 300), size=st.integers(1, 50), data=st.data())
def test_a_page_repeating_an_item_of_an_earlier_page_is_refused(count, size, data):
    # The service answers page 2 onwards with one item of an earlier page in it: a listing moved
    # under the walk, or looping. Landing it would key one budget twice.
    items = [{"id": f"b-{i}"} for i in range(count)]
    if count <= size:
        size = count - 1
    later = data.draw(st.integers(size, count - 1))
    items[later] = items[data.draw(st.integers(0, min(later, size) - 1))]
    with pytest.raises(ListingRefused, match="repeats id 'b-"):
        list(paged(_listing(items, size, count), what="GET budgets", key="id"))


def test_items_without_their_key_are_known_by_their_text():
    pages = {1: ([{"amount": 1}], True, None), 2: ([{"amount": 1}], True, None)}
    with pytest.raises(ListingRefused, match="page 2 repeats"):
        list(paged(pages.__getitem__, what="x", key="user"))


def test_new_items_under_a_huge_total_count_are_walked_no_further_than_the_pages_it_implies():
    # Page 1 holds 100 of the 230 counted: three pages at most, however few the later ones hold.
    asked: list[int] = []

    def fetch(page: int):
        asked.append(page)
        return [{"id": f"{page}-{i}"} for i in range(100 if page == 1 else 10)], True, 230

    with pytest.raises(ListingRefused, match="after the 3 pages a listing of 230 items may take"):
        list(paged(fetch, what="x", key="id"))
    assert asked == [1, 2, 3]


def test_an_uncounted_listing_of_new_items_stops_at_the_absolute_cap():
    asked: list[int] = []

    def fetch(page: int):
        asked.append(page)
        return [{"id": str(page)}], True, None

    with pytest.raises(ListingRefused, match=f"at most {MAX_PAGES}"):
        list(paged(fetch, what="x", key="id"))
    assert len(asked) == MAX_PAGES


def test_each_dialect_s_paths_and_names(tmp_path):
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.url.raw_path.decode().partition("?")[0])  # as sent: an id's slash stays escaped
        if request.url.path.endswith("cost-centers"):
            key = "costCenters" if "/settings/" in request.url.path else "cost_centers"
            return httpx.Response(200, json={key: [{"id": "cc", "name": "C", "resources": []}]})
        if request.url.path.endswith("user-states"):
            return httpx.Response(200, json={"user_states": [{"user": "u"}], "has_next_page": False, "total_count": 1})
        return httpx.Response(200, json={"seat_breakdown": {"total": 1}, "seat_management_setting": "assign_all"})

    for dialect in ("service", "github"):
        with _client(handler, tmp_path / dialect, dialect=dialect) as client:
            assert list_cost_centers(client, enterprise="big")[0]["id"] == "cc"
            assert list_budget_user_states(client, enterprise="big", budget_id="b/1")[0]["user"] == "u"
            assert get_org_billing(client, org="acme")["seat_breakdown"] == {"total": 1}
    assert seen == [
        "/enterprises/big/billing/cost-centers",
        "/enterprises/big/billing/budgets/b%2F1/user-states",
        "/orgs/acme/assistant/billing",
        "/enterprises/big/settings/billing/cost-centers",
        "/enterprises/big/settings/billing/budgets/b%2F1/user-states",
        "/orgs/acme/copilot/billing",
    ]
