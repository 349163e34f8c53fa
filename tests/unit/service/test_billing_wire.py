"""The billing endpoints' wire names per dialect (one declaration), money parsed as Decimal
never float, and a 403 on billing naming who may read it."""

from __future__ import annotations

import json
from datetime import date
from decimal import Decimal

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipelines.service._failure import failure
from pipelines.service.billing import parse_usage
from pipelines.service.billing_wire import BILLING_ROLES, Scope, billing_path, canonical_word, month_closes, wire_name
from pipelines.service.dialect import get_dialect
from pipelines.service.errors import PermissionDenied

PATHS = [
    (
        "enterprise",
        "ai_credit_usage",
        "/enterprises/e/settings/billing/ai_credit/usage",
        "/enterprises/e/billing/ai-credits/usage",
    ),
    (
        "organization",
        "ai_credit_usage",
        "/organizations/e/settings/billing/ai_credit/usage",
        "/orgs/e/billing/ai-credits/usage",
    ),
    (
        "enterprise",
        "premium_request_usage",
        "/enterprises/e/settings/billing/premium_request/usage",
        "/enterprises/e/billing/premium-requests/usage",
    ),
    ("organization", "usage", "/organizations/e/settings/billing/usage", "/orgs/e/billing/usage"),
    (
        "enterprise",
        "usage_summary",
        "/enterprises/e/settings/billing/usage/summary",
        "/enterprises/e/billing/usage/summary",
    ),
    (
        "enterprise",
        "cost_centers",
        "/enterprises/e/settings/billing/cost-centers",
        "/enterprises/e/billing/cost-centers",
    ),
    ("enterprise", "budgets", "/enterprises/e/settings/billing/budgets", "/enterprises/e/billing/budgets"),
    ("enterprise", "reports", "/enterprises/e/settings/billing/reports", "/enterprises/e/billing/reports"),
    ("organization", "seat_billing", "/orgs/e/copilot/billing", "/orgs/e/assistant/billing"),
]


@pytest.mark.parametrize(("scope", "endpoint", "github", "service"), PATHS)
def test_each_billing_endpoint_has_its_path_in_each_dialect(
    scope: Scope, endpoint: str, github: str, service: str
) -> None:
    assert billing_path("github", scope, "e", endpoint) == github
    assert billing_path("service", scope, "e", endpoint) == service


def test_a_budget_s_user_states_path_fills_its_id_and_an_enterprise_only_endpoint_refuses_an_organization() -> None:
    assert billing_path("github", "enterprise", "e", "budget_user_states", budget_id="b1") == (
        "/enterprises/e/settings/billing/budgets/b1/user-states"
    )
    with pytest.raises(ValueError, match="cost_centers"):
        billing_path("service", "organization", "o", "cost_centers")


def test_the_service_dialect_names_each_public_field_in_snake_case_and_its_own_product_word() -> None:
    assert [
        wire_name("service", n) for n in ("usageItems", "timePeriod", "pricePerUnit", "organizationName", "sku")
    ] == [
        "usage_items",
        "time_period",
        "price_per_unit",
        "organization_name",
        "sku",
    ]
    assert wire_name("github", "usageItems") == "usageItems"
    assert canonical_word("github", "copilot_ai_credit") == canonical_word("service", "assistant_ai_credit")


def test_a_month_closes_at_the_start_of_the_4th_of_the_next() -> None:
    assert month_closes(date(2026, 10, 1)) == date(2026, 11, 4)
    assert month_closes(date(2026, 12, 1)) == date(2027, 1, 4)


@given(st.lists(st.decimals(min_value=0, max_value=10**9, places=6, allow_nan=False), min_size=1, max_size=40))
def test_money_is_parsed_as_decimal_and_sums_exactly(amounts: list[Decimal]) -> None:
    body = '{"usageItems": [' + ", ".join(f'{{"sku": "x", "netAmount": {a}}}' for a in amounts) + "]}"
    answer = parse_usage(body.encode(), dialect="github", url="/u")
    parsed = [item["netAmount"] for item in answer.items]
    assert all(not isinstance(v, float) for v in parsed)
    assert sum(Decimal(v) for v in parsed) == sum(amounts)


def test_a_usage_answer_without_its_items_is_malformed() -> None:
    with pytest.raises(Exception, match="usageItems"):
        parse_usage(json.dumps({"usage_items": []}).encode(), dialect="github", url="/u")


@pytest.mark.parametrize(
    ("path", "roles"),
    [
        ("/enterprises/e/settings/billing/ai_credit/usage", BILLING_ROLES["enterprise"]),
        ("/orgs/e/billing/usage/summary", BILLING_ROLES["organization"]),
    ],
)
def test_a_403_on_billing_is_permission_denied_naming_who_may_read_it(path: str, roles: str) -> None:
    request = httpx.Request("GET", f"http://service.test{path}")
    response = httpx.Response(403, json={"message": "Resource not accessible by integration"}, request=request)
    error = failure(response=response, dialect=get_dialect("github"))
    assert isinstance(error, PermissionDenied)
    assert roles in error.hint
    assert "Resource not accessible by integration" in str(error)


def test_a_403_on_a_seat_listing_is_not_told_as_billing() -> None:
    request = httpx.Request("GET", "http://service.test/orgs/o/copilot/billing/seats")
    response = httpx.Response(403, json={"message": "Forbidden"}, request=request)
    error = failure(response=response, dialect=get_dialect("github"))
    assert isinstance(error, PermissionDenied) and "billing manager" not in error.hint
