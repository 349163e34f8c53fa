"""The billing state's listings: budgets and user states walked page by page to the last, a
listing that never ends refused, money parsed as Decimal, the paths of each dialect."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import httpx
import pytest

from pipelines.service import RetryPolicy, Secret, ServiceClient, ServiceConfig, ServiceError, TokenAuth
from pipelines.service.billing_state import (
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
        list(paged(endless, what="GET budgets"))


def test_an_empty_page_ends_a_listing_that_says_more_follow():
    pages = {1: ([{"id": "a"}], True, None), 2: ([], True, None)}
    assert list(paged(pages.__getitem__, what="x")) == [{"id": "a"}]


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
