"""The emulator's billing settings over loopback HTTP: cost centers holding users, teams and
organizations, budgets and their user states paged with blocked users, usage report exports
whose CSV adds up to the AI-credit answer, the seat breakdown against the seat listing, and a
token without billing read refused on billing only."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

import httpx
import pytest

from emulator import EmulatorConfig, RunningEmulator, running_emulator
from emulator.billing_exports import CSV_COLUMNS
from tests.integration.emulator.conftest import TODAY

PREFIX = {"github": "/enterprises/acme-corp/settings/billing", "service": "/enterprises/acme-corp/billing"}
AI = {"github": "/ai_credit/usage", "service": "/ai-credits/usage"}


def decimal_json(response: httpx.Response) -> Any:
    assert response.status_code in (200, 202), response.text
    return json.loads(response.content, parse_float=Decimal)


@pytest.fixture(scope="module", params=["github", "service"])
def billing(request: pytest.FixtureRequest) -> Iterator[tuple[RunningEmulator, httpx.Client, str]]:
    config = EmulatorConfig(seed=7, users=40, repos=6, today=TODAY, dialect=request.param)
    with running_emulator(config) as emu:
        headers = {"Authorization": f"token {emu.credentials['token']}"}
        with httpx.Client(base_url=emu.base_url, headers=headers, timeout=60) as client:
            yield emu, client, request.param


def test_cost_centers_hold_users_teams_and_organizations_and_a_deleted_one_holds_nothing(billing: Any) -> None:
    _, client, dialect = billing
    field = "costCenters" if dialect == "github" else "cost_centers"
    centers = decimal_json(client.get(PREFIX[dialect] + "/cost-centers"))[field]
    kinds = {r["type"] for c in centers for r in c["resources"]}
    assert kinds == {"User", "Team", "Organization"}
    assert {c["state"] for c in centers} == {"active", "deleted"}
    pooled = [c for c in centers if c["ai_credit_pool_enabled"]]
    assert pooled and all(c["ai_credit_pool_state"]["current_amount"] > 0 for c in pooled)
    active = decimal_json(client.get(PREFIX[dialect] + "/cost-centers", params={"state": "active"}))[field]
    assert [c for c in centers if c["state"] == "active"] == active
    one = decimal_json(client.get(PREFIX[dialect] + f"/cost-centers/{active[0]['id']}"))
    assert one == active[0]
    assert client.get(PREFIX[dialect] + "/cost-centers/no-such-id").status_code == 404


def test_budgets_page_with_a_total_and_some_users_are_blocked(billing: Any) -> None:
    _, client, dialect = billing
    path = PREFIX[dialect] + "/budgets"
    whole = decimal_json(client.get(path, params={"per_page": 100}))
    assert whole["has_next_page"] is False
    total = whole["total_count"]
    assert total == len(whole["budgets"]) >= 6
    seen: list[dict[str, Any]] = []
    page = 1
    while True:
        body = decimal_json(client.get(path, params={"per_page": 3, "page": page}))
        assert body["total_count"] == total and len(body["budgets"]) <= 3
        seen += body["budgets"]
        if not body["has_next_page"]:
            break
        page += 1
    assert seen == whole["budgets"]
    scopes = {b["budget_scope"] for b in seen}
    assert scopes == {"enterprise", "cost_center", "multi_user_customer", "user"}
    assert any(b["prevent_further_usage"] for b in seen) and not all(b["prevent_further_usage"] for b in seen)
    multi = next(b for b in seen if b["budget_scope"] == "multi_user_customer")
    states_path = f"{path}/{multi['id']}/user-states"
    states = decimal_json(client.get(states_path, params={"per_page": 100}))
    assert states["total_count"] == len(states["user_states"]) > 40  # reported and quiet users
    blocked = [s for s in states["user_states"] if s["consumed_amount"] >= s["target_amount"]]
    assert blocked and len(blocked) < len(states["user_states"])
    assert any("override_budget_id" in s for s in states["user_states"])
    paged = decimal_json(client.get(states_path, params={"per_page": 7, "page": 2}))
    assert paged["user_states"] == states["user_states"][7:14] and paged["has_next_page"] is True
    user_budget = next(b for b in seen if b["budget_scope"] == "user")
    assert client.get(f"{path}/{user_budget['id']}/user-states").status_code == 404


def test_an_exported_csv_adds_up_to_the_ai_credit_answer_for_the_same_days(billing: Any) -> None:
    _, client, dialect = billing
    asked = decimal_json(
        client.post(
            PREFIX[dialect] + "/reports",
            json={"report_type": "ai_credit", "start_date": "2026-10-01", "end_date": "2026-10-31"},
        )
    )
    assert asked["status"] == "processing"
    ready = decimal_json(client.get(PREFIX[dialect] + f"/reports/{asked['id']}"))
    assert ready["status"] == "completed"
    listed = decimal_json(client.get(PREFIX[dialect] + "/reports"))["usage_report_exports"]
    assert asked["id"] in {e["id"] for e in listed}
    text = httpx.get(ready["download_urls"][0]).text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert tuple(text.splitlines()[0].split(",")) == CSV_COLUMNS
    answer = decimal_json(client.get(PREFIX[dialect] + AI[dialect], params={"year": 2026, "month": 10}))
    items = answer["usageItems" if dialect == "github" else "usage_items"]
    for column, field in (
        ("gross_amount", "grossAmount"),
        ("discount_amount", "discountAmount"),
        ("net_amount", "netAmount"),
    ):
        key = field if dialect == "github" else column
        assert sum(Decimal(r[column]) for r in rows) == sum((i[key] for i in items), Decimal(0))
    # accounts whose telemetry is off are billed, though no usage report names them
    assert any(r["username"].startswith("acme-quiet-") for r in rows)
    tampered = ready["download_urls"][0].replace("signature=", "signature=0")
    assert httpx.get(tampered).status_code == 403
    too_long = client.post(
        PREFIX[dialect] + "/reports",
        json={"report_type": "ai_credit", "start_date": "2026-09-01", "end_date": "2026-10-31"},
    )
    assert too_long.status_code == 422


def test_the_seat_breakdown_counts_the_seat_listing(billing: Any) -> None:
    _, client, dialect = billing
    product = "copilot" if dialect == "github" else "assistant"
    body = decimal_json(client.get(f"/orgs/acme/{product}/billing"))
    seats = decimal_json(client.get(f"/orgs/acme/{product}/billing/seats", params={"per_page": 100}))
    breakdown = body["seat_breakdown"]
    assert breakdown["total"] == seats["total_seats"] == len(seats["seats"])
    cycle = TODAY.replace(day=1).isoformat()
    active = sum(1 for s in seats["seats"] if (s["last_activity_at"] or "") >= cycle)
    assert breakdown["active_this_cycle"] == active
    assert breakdown["active_this_cycle"] + breakdown["inactive_this_cycle"] == breakdown["total"]
    assert breakdown["pending_cancellation"] == sum(1 for s in seats["seats"] if s["pending_cancellation_date"])
    assert body["plan_type"] == "business" and body["seat_management_setting"] == "assign_selected"


@pytest.fixture(scope="module")
def no_billing_read() -> Iterator[RunningEmulator]:
    with running_emulator(EmulatorConfig(seed=7, users=12, repos=3, today=TODAY, billing_read=False)) as emu:
        yield emu


@pytest.mark.parametrize(
    "path",
    [
        "/enterprises/acme-corp/billing/ai-credits/usage",
        "/orgs/acme/billing/usage",
        "/enterprises/acme-corp/billing/cost-centers",
        "/enterprises/acme-corp/billing/budgets",
        "/enterprises/acme-corp/billing/reports",
        "/orgs/acme/assistant/billing",
    ],
)
def test_a_token_without_billing_read_is_refused_billing_with_the_services_words(
    no_billing_read: RunningEmulator, path: str
) -> None:
    headers = {"Authorization": f"token {no_billing_read.credentials['token']}"}
    refused = httpx.get(no_billing_read.base_url + path, headers=headers)
    assert refused.status_code == 403
    assert refused.json() == {
        "message": "Must have admin rights or billing manager role",
        "documentation_url": "https://docs.service.example/rest/billing/usage",
    }


def test_a_token_without_billing_read_reads_everything_else_as_before(no_billing_read: RunningEmulator) -> None:
    headers = {"Authorization": f"token {no_billing_read.credentials['token']}"}
    with httpx.Client(base_url=no_billing_read.base_url, headers=headers) as client:
        assert client.get("/orgs/acme/repos").status_code == 200
        assert client.get("/orgs/acme/assistant/billing/seats").status_code == 200
        day = {"day": TODAY.replace(day=10).isoformat()}
        assert client.get("/orgs/acme/assistant/metrics/reports/users-1-day", params=day).status_code == 200


def test_an_installation_without_billing_read_is_told_it_is_not_accessible_by_integration(
    no_billing_read: RunningEmulator,
) -> None:
    token, _ = no_billing_read.state.issue_installation_token()
    refused = httpx.get(
        no_billing_read.base_url + "/enterprises/acme-corp/billing/budgets",
        headers={"Authorization": f"token {token}"},
    )
    assert refused.status_code == 403
    assert refused.json()["message"] == "Resource not accessible by integration"


def test_budgets_for_a_user_name_the_budget_in_effect_and_blocked_users_filter_by_threshold(billing: Any) -> None:
    _, client, dialect = billing
    path = PREFIX[dialect] + "/budgets"
    budgets = decimal_json(client.get(path, params={"per_page": 100}))["budgets"]
    multi = next(b for b in budgets if b["budget_scope"] == "multi_user_customer")
    own = next(b for b in budgets if b["budget_scope"] == "user")
    states = decimal_json(client.get(f"{path}/{multi['id']}/user-states", params={"per_page": 100}))["user_states"]
    for login, effective_id in (
        (own["user"], own["id"]),
        (next(s["user"] for s in states if "override_budget_id" not in s), multi["id"]),
    ):
        body = decimal_json(client.get(path, params={"user": login.upper()}))
        assert body["user"] == login
        assert body["effective_budget"]["id"] == effective_id
        state = next(s for s in states if s["user"] == login)
        assert body["effective_budget"]["consumed_amount"] == state["consumed_amount"]
        assert {b["budget_scope"] for b in body["budgets"]} <= {"multi_user_customer", "user"}
    blocked = decimal_json(
        client.get(f"{path}/{multi['id']}/user-states", params={"threshold_lower_bound": 100, "per_page": 100})
    )["user_states"]
    assert blocked == [s for s in states if s["consumed_amount"] >= s["target_amount"]] != []
    by_use = decimal_json(client.get(f"{path}/{multi['id']}/user-states", params={"sort_order": "0", "per_page": 100}))
    shares = [s["consumed_amount"] / s["target_amount"] for s in by_use["user_states"]]
    assert shares == sorted(shares, reverse=True)
