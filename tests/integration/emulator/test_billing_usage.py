"""The emulator's billing usage over loopback HTTP, in both dialects: the AI-credit answer's
shape and names, gross - discount = net, per cost center plus `none` = the whole to the cent,
the 24 months kept, months closing, and the credits billed against the usage reports' signal."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import httpx
import pytest

from emulator import EmulatorConfig, RunningEmulator, running_emulator
from tests.integration.emulator.conftest import TODAY

# path, field names and product word per dialect
DIALECTS: dict[str, dict[str, str]] = {
    "github": {
        "prefix": "/enterprises/acme-corp/settings/billing",
        "org_prefix": "/organizations/acme/settings/billing",
        "ai": "/ai_credit/usage",
        "premium": "/premium_request/usage",
        "items": "usageItems",
        "gross": "grossAmount",
        "discount": "discountAmount",
        "net": "netAmount",
        "gross_q": "grossQuantity",
        "discount_q": "discountQuantity",
        "net_q": "netQuantity",
        "unit": "unitType",
        "price": "pricePerUnit",
        "period": "timePeriod",
        "product": "copilot",
    },
    "service": {
        "prefix": "/enterprises/acme-corp/billing",
        "org_prefix": "/orgs/acme/billing",
        "ai": "/ai-credits/usage",
        "premium": "/premium-requests/usage",
        "items": "usage_items",
        "gross": "gross_amount",
        "discount": "discount_amount",
        "net": "net_amount",
        "gross_q": "gross_quantity",
        "discount_q": "discount_quantity",
        "net_q": "net_quantity",
        "unit": "unit_type",
        "price": "price_per_unit",
        "period": "time_period",
        "product": "assistant",
    },
}


def decimal_json(response: httpx.Response) -> Any:
    assert response.status_code in (200, 202), response.text
    return json.loads(response.content, parse_float=Decimal)


@pytest.fixture(scope="module", params=["github", "service"])
def billing(request: pytest.FixtureRequest) -> Iterator[tuple[RunningEmulator, httpx.Client, dict[str, str]]]:
    config = EmulatorConfig(seed=7, users=40, repos=6, today=TODAY, dialect=request.param)
    with running_emulator(config) as emu:
        headers = {"Authorization": f"token {emu.credentials['token']}"}
        with httpx.Client(base_url=emu.base_url, headers=headers, timeout=60) as client:
            yield emu, client, DIALECTS[request.param]


def test_ai_credit_usage_names_fields_skus_and_models_in_the_dialects_words(billing: Any) -> None:
    _, client, w = billing
    body = decimal_json(client.get(w["prefix"] + w["ai"], params={"year": 2026, "month": 10}))
    assert body[w["period"]] == {"year": 2026, "month": 10}
    assert body["enterprise"] == "acme-corp"
    items = body[w["items"]]
    assert {i["sku"] for i in items} == {
        f"{w['product']}_ai_credit",
        "coding_agent_ai_credit",
        "spark_ai_credit",
    }
    assert {i["model"] for i in items} >= {"Claude Sonnet 4.5", "GPT-5", "Auto: Claude Haiku 4.5", "GPT-5.2"}
    for item in items:
        assert item[w["unit"]] == "ai-credits"
        assert item[w["price"]] == Decimal("0.01")
        assert item[w["gross"]] == item[w["gross_q"]] * Decimal("0.01")
        assert item[w["gross"]] - item[w["discount"]] == item[w["net"]]
        assert item[w["gross_q"]] - item[w["discount_q"]] == item[w["net_q"]]
    assert any(item[w["discount"]] > 0 for item in items) and any(item[w["net"]] > 0 for item in items)


def test_months_before_june_2026_bill_premium_requests_at_four_cents(billing: Any) -> None:
    _, client, w = billing
    april = {"year": 2026, "month": 4}
    assert decimal_json(client.get(w["prefix"] + w["ai"], params=april))[w["items"]] == []
    items = decimal_json(client.get(w["prefix"] + w["premium"], params=april))[w["items"]]
    assert {i["sku"] for i in items} == {f"{w['product']}_premium_request", "coding_agent_premium_request"}
    assert all(i[w["unit"]] == "requests" and i[w["price"]] == Decimal("0.04") for i in items)
    assert decimal_json(client.get(w["prefix"] + w["premium"], params={"year": 2026, "month": 10}))[w["items"]] == []


def _sums(items: list[dict[str, Any]], w: dict[str, str]) -> tuple[Decimal, Decimal, Decimal]:
    return (
        sum((i[w["gross"]] for i in items), Decimal(0)),
        sum((i[w["discount"]] for i in items), Decimal(0)),
        sum((i[w["net"]] for i in items), Decimal(0)),
    )


def test_every_cost_center_and_none_add_up_to_the_unfiltered_answer_to_the_cent(billing: Any) -> None:
    _, client, w = billing
    centers = decimal_json(client.get(w["prefix"] + "/cost-centers"))
    ids = [c["id"] for c in centers[wire(w, "costCenters")]] + ["none"]
    for period in ({"year": 2026, "month": 10}, {"year": 2026, "month": 11, "day": 3}):
        whole = _sums(decimal_json(client.get(w["prefix"] + w["ai"], params=period))[w["items"]], w)
        parts = [
            _sums(decimal_json(client.get(w["prefix"] + w["ai"], params=period | {"cost_center_id": i}))[w["items"]], w)
            for i in ids
        ]
        assert whole[0] > 0
        assert tuple(sum(p[k] for p in parts) for k in range(3)) == whole
        assert sum(1 for p in parts if p[0] > 0) >= 3  # the usage is spread, not all in one


def wire(w: dict[str, str], name: str) -> str:
    return name if w["items"] == "usageItems" else "cost_centers"


def test_organizations_of_the_enterprise_add_up_to_it(billing: Any) -> None:
    _, client, w = billing
    october = {"year": 2026, "month": 10}
    whole = _sums(decimal_json(client.get(w["prefix"] + w["ai"], params=october))[w["items"]], w)
    acme = decimal_json(client.get(w["org_prefix"] + w["ai"], params=october))
    assert acme["organization"] == "acme"
    labs = decimal_json(client.get(w["prefix"] + w["ai"], params=october | {"organization": "ACME-LABS"}))
    assert labs["organization"] == "ACME-LABS"
    parts = [_sums(acme[w["items"]], w), _sums(labs[w["items"]], w)]
    assert tuple(parts[0][k] + parts[1][k] for k in range(3)) == whole


def test_billing_usage_and_its_summary_hold_both_meters_and_add_up_to_their_answers(billing: Any) -> None:
    _, client, w = billing
    may = {"year": 2026, "month": 5}  # premium requests until May 31, AI credits from June 1
    summer = [{"year": 2026, "month": m} for m in (5, 6)]
    metered = [
        _sums(decimal_json(client.get(w["prefix"] + path, params=month))[w["items"]], w)
        for month in summer
        for path in (w["ai"], w["premium"])
    ]
    expected = tuple(sum(m[k] for m in metered) for k in range(3))
    usage = [i for month in summer for i in decimal_json(client.get(w["prefix"] + "/usage", params=month))[w["items"]]]
    summary = [
        i
        for month in summer
        for i in decimal_json(client.get(w["prefix"] + "/usage/summary", params=month))[w["items"]]
    ]
    assert _sums(usage, w) == _sums(summary, w) == expected
    assert {i["date"][:7] for i in usage} == {"2026-05", "2026-06"}
    org = "organizationName" if w["items"] == "usageItems" else "organization_name"
    assert {i[org] for i in usage} == {"acme", "acme-labs"}
    units = {i[w["unit"]] for i in decimal_json(client.get(w["prefix"] + "/usage/summary", params=may))[w["items"]]}
    assert units == {"requests"}


def test_more_than_24_months_back_is_refused_with_a_message(billing: Any) -> None:
    _, client, w = billing
    oldest = decimal_json(client.get(w["prefix"] + w["premium"], params={"year": 2024, "month": 12}))
    assert oldest[w["items"]], "the 24th month back is kept"
    refused = client.get(w["prefix"] + w["premium"], params={"year": 2024, "month": 11})
    assert refused.status_code == 400
    assert "24 months" in refused.json()["message"]


def test_a_user_is_billed_under_the_users_path_as_in_the_enterprise(billing: Any) -> None:
    _, client, w = billing
    path = w["prefix"].replace("/enterprises/acme-corp", "/users/dev-00003") + w["ai"]
    own = decimal_json(client.get(path, params={"year": 2026, "month": 10}))
    assert own["user"] == "dev-00003"
    filtered = decimal_json(client.get(w["prefix"] + w["ai"], params={"year": 2026, "month": 10, "user": "dev-00003"}))
    assert own[w["items"]] == filtered[w["items"]]
    assert client.get(path.replace("dev-00003", "nobody-here"), params={"year": 2026, "month": 10}).status_code == 404


@pytest.fixture
def clocked() -> Iterator[tuple[RunningEmulator, httpx.Client]]:
    with running_emulator(EmulatorConfig(seed=11, users=12, repos=3, today=date(2026, 11, 2))) as emu:
        headers = {"Authorization": f"token {emu.credentials['token']}"}
        with httpx.Client(base_url=emu.base_url, headers=headers, timeout=60) as client:
            yield emu, client


def _control(emu: RunningEmulator, year: int, month: int) -> dict[str, Any]:
    return emu.billed_total(scope="enterprise", name="acme-corp", year=year, month=month)


def test_an_open_month_grows_until_the_4th_of_the_next_then_never_changes(
    clocked: tuple[RunningEmulator, httpx.Client],
) -> None:
    emu, client = clocked
    path = "/enterprises/acme-corp/billing/ai-credits/usage"
    day = {"year": 2026, "month": 10, "day": 30}
    w = DIALECTS["service"]
    first = _sums(decimal_json(client.get(path, params=day))[w["items"]], w)[0]
    assert first == _sums(decimal_json(client.get(path, params=day))[w["items"]], w)[0]
    assert _control(emu, 2026, 10)["month_closed"] is False
    emu.set_today(date(2026, 11, 3))
    later = _sums(decimal_json(client.get(path, params=day))[w["items"]], w)[0]
    assert later > first, "late usage of an open month shows on a re-fetch"
    emu.set_today(date(2026, 11, 4))
    closed = decimal_json(client.get(path, params={"year": 2026, "month": 10}))
    control = _control(emu, 2026, 10)
    assert control["month_closed"] is True
    meter = control["meters"]["ai_credit"]
    assert _sums(closed[w["items"]], w) == tuple(
        Decimal(meter[k]) for k in ("gross_amount", "discount_amount", "net_amount")
    )
    for later_day in (date(2026, 11, 19), date(2027, 3, 1)):
        emu.set_today(later_day)
        assert decimal_json(client.get(path, params={"year": 2026, "month": 10})) == closed


def test_billed_chat_credits_agree_with_the_reports_ai_credits_used_within_two_percent(billing: Any) -> None:
    """Per user-day (from the export's CSV) and over the month: the signal +-2%, plus rounding to
    0.01 per model line and the report's own; accounts with telemetry off are billed, never reported."""
    _, client, w = billing
    days = [date(2026, 10, 1) + timedelta(days=i) for i in range(31)]
    reported: dict[tuple[str, str], Decimal] = {}
    for day in days:
        meta = client.get(f"/enterprises/acme-corp/{w['product']}/metrics/reports/users-1-day", params={"day": day})
        for link in meta.json()["download_links"]:
            for line in httpx.get(link, timeout=30).content.splitlines():
                record = json.loads(line, parse_float=Decimal)
                reported[(record["user_login"], day.isoformat())] = Decimal(record["ai_credits_used"])
    asked = decimal_json(
        client.post(
            w["prefix"] + "/reports",
            json={"report_type": "ai_credit", "start_date": "2026-10-01", "end_date": "2026-10-31"},
        )
    )
    link = decimal_json(client.get(w["prefix"] + f"/reports/{asked['id']}"))["download_urls"][0]
    billed: dict[tuple[str, str], Decimal] = {}
    lines: dict[tuple[str, str], int] = {}
    for row in csv.DictReader(io.StringIO(httpx.get(link).text)):
        if row["sku"] == f"{w['product']}_ai_credit":
            key = (row["username"], row["date"])
            billed[key] = billed.get(key, Decimal(0)) + Decimal(row["quantity"])
            lines[key] = lines.get(key, 0) + 1
    unreported = {login for login, _ in set(billed) - set(reported)}
    assert unreported and all(login.startswith("acme-quiet-") for login in unreported)
    for key, signal in reported.items():
        slack = signal * Decimal("0.02") + Decimal("0.005") * (lines.get(key, 0) + 1)
        assert abs(billed.get(key, Decimal(0)) - signal) <= slack, key
    signal_total = sum(reported.values(), Decimal(0))
    billed_total = sum((v for k, v in billed.items() if k in reported), Decimal(0))
    rounding = Decimal("0.005") * (sum(lines.values()) + len(reported))
    assert signal_total > 0 and abs(billed_total - signal_total) <= signal_total * Decimal("0.02") + rounding
