"""The emulated Cursor Admin API over HTTP, against the vendor's docs (docs/vendors.md): the
documented members, daily usage (the active users' records, or with page numbers every member's)
and spend, at most 30 days a request, Cursor's error shape for a wrong key and a bad request, and
429 with Retry-After once the team's minute is spent."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

import httpx
import pytest

from emulator import EmulatorConfig, RunningEmulator, running_emulator
from emulator.vendor_cursor_data import RATES
from emulator.vendor_people import day_ms
from tests.integration.emulator._vendor_docs import differences, example

TODAY = date(2026, 11, 20)
_DAY = 86_400_000


@pytest.fixture(scope="module")
def emu() -> Iterator[RunningEmulator]:
    config = EmulatorConfig(seed=7, users=40, repos=2, today=TODAY, cursor_requests_per_minute=10_000)
    with running_emulator(config) as running:
        yield running


def _post(emu: RunningEmulator, path: str, body: Any, key: str | None = None) -> httpx.Response:
    creds = emu.credentials
    return httpx.post(creds["cursor_base_url"] + path, json=body, auth=(key or creds["cursor_api_key"], ""))


def _members(emu: RunningEmulator) -> httpx.Response:
    creds = emu.credentials
    return httpx.get(creds["cursor_base_url"] + "/teams/members", auth=(creds["cursor_api_key"], ""))


def test_the_members_are_the_docs_example_in_shape(emu: RunningEmulator) -> None:
    body = _members(emu).json()
    assert len(body["teamMembers"]) >= 10
    assert differences(body, example("teamMembers")) == []
    assert {m["role"] for m in body["teamMembers"]} == {"owner", "member"}


def _daily(emu: RunningEmulator, days: int, **paging: int) -> dict[str, Any]:
    start, end = day_ms(TODAY - timedelta(days=days - 1)), day_ms(TODAY)
    body: dict[str, Any] = _post(emu, "/teams/daily-usage-data", {"startDate": start, "endDate": end, **paging}).json()
    assert body["period"] == {"startDate": start, "endDate": end}
    return body


def test_daily_usage_without_page_numbers_is_the_active_users_records_in_the_docs_shape(emu: RunningEmulator) -> None:
    body = _daily(emu, 30)
    assert "pagination" not in body and len(body["data"]) >= 100
    assert all(r["isActive"] for r in body["data"])
    assert differences(body, example("period"), optional=frozenset({"pagination"})) == []
    everyone = _daily(emu, 30, page=1, pageSize=1000)["data"]
    assert body["data"] == [r for r in everyone if r["isActive"]]


def test_daily_usage_with_page_numbers_is_every_member_every_day_in_the_docs_shape(emu: RunningEmulator) -> None:
    members = [m["email"] for m in _members(emu).json()["teamMembers"]]
    body = _daily(emu, 30, page=1, pageSize=1000)
    start = body["period"]["startDate"]
    assert [(r["date"], r["email"]) for r in body["data"]] == [
        (start + n * _DAY, email) for n in range(30) for email in members
    ]
    assert {r["isActive"] for r in body["data"]} == {True, False}
    assert differences(body, example("period")) == []
    assert body["pagination"] == {
        "page": 1,
        "pageSize": 1000,
        "totalUsers": len(members),
        "totalPages": 1,
        "hasNextPage": False,
        "hasPreviousPage": False,
    }
    pages = [_daily(emu, 3, page=n, pageSize=5) for n in range(1, 20)]
    assert {p["pagination"]["totalPages"] for p in pages} == {-(-len(members) // 5)}
    assert [p["pagination"]["hasNextPage"] for p in pages[:2]] == [True, True]
    paged = sorted((r["date"], r["email"]) for p in pages for r in p["data"])
    assert paged == sorted((r["date"], r["email"]) for r in _daily(emu, 3, page=1, pageSize=1000)["data"])


def test_a_range_ending_in_the_middle_of_a_day_holds_that_day(emu: RunningEmulator) -> None:
    start = day_ms(TODAY - timedelta(days=3)) + 5_000
    records = _post(emu, "/teams/daily-usage-data", {"startDate": start, "endDate": start + _DAY}).json()["data"]
    assert sorted({r["date"] for r in records}) == [
        day_ms(TODAY - timedelta(days=3)),
        day_ms(TODAY - timedelta(days=2)),
    ]


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"startDate": 0, "endDate": 31 * _DAY}, "Date range cannot exceed 30 days"),
        ({"startDate": 0, "endDate": _DAY, "page": 0, "pageSize": 10}, "page must be a whole number"),
        ({"startDate": 2 * _DAY, "endDate": _DAY}, "endDate must not be before startDate"),
        ({"endDate": _DAY}, "startDate is required"),
        ({"startDate": "2026-11-01", "endDate": _DAY}, "startDate is required"),
        ([1, 2], "Request body must be a JSON object"),
    ],
)
def test_a_bad_range_is_refused_in_cursors_shape(emu: RunningEmulator, body: Any, says: str) -> None:
    answer = _post(emu, "/teams/daily-usage-data", body)
    assert answer.status_code == 400
    assert answer.json()["error"] == "Bad Request" and answer.json()["message"].startswith(says)


def test_thirty_days_is_one_request(emu: RunningEmulator) -> None:
    start = day_ms(TODAY - timedelta(days=30))
    answer = _post(emu, "/teams/daily-usage-data", {"startDate": start, "endDate": start + 30 * _DAY})
    assert answer.status_code == 200 and answer.json()["data"]


def test_spend_is_the_docs_example_in_shape_and_pages_by_number(emu: RunningEmulator) -> None:
    whole = _post(emu, "/teams/spend", {}).json()
    assert differences(whole, example("teamMemberSpend")) == []
    assert whole["subscriptionCycleStart"] == day_ms(TODAY.replace(day=1))
    assert whole["totalPages"] == 1 and whole["totalMembers"] == len(whole["teamMemberSpend"])
    pages = [_post(emu, "/teams/spend", {"page": n, "pageSize": 4}).json() for n in range(1, 20)]
    assert {p["totalPages"] for p in pages} == {-(-whole["totalMembers"] // 4)}
    assert [m for p in pages for m in p["teamMemberSpend"]] == whole["teamMemberSpend"]


def test_spend_sorts_and_searches_as_documented(emu: RunningEmulator) -> None:
    by_amount = _post(emu, "/teams/spend", {"sortBy": "amount", "sortDirection": "asc"}).json()["teamMemberSpend"]
    assert [m["spendCents"] for m in by_amount] == sorted(m["spendCents"] for m in by_amount)
    by_user = _post(emu, "/teams/spend", {"sortBy": "user", "sortDirection": "desc"}).json()["teamMemberSpend"]
    assert [m["email"] for m in by_user] == sorted((m["email"] for m in by_user), reverse=True)
    found = _post(emu, "/teams/spend", {"searchTerm": "CONTRACTOR"}).json()["teamMemberSpend"]
    assert found and all("contractor" in m["email"] for m in found)
    assert _post(emu, "/teams/spend", {"sortBy": "size"}).status_code == 400
    assert _post(emu, "/teams/spend", {"pageSize": 0}).status_code == 400


def test_the_cycles_spend_is_its_daily_requests_at_the_members_rate(emu: RunningEmulator) -> None:
    body = {"startDate": day_ms(TODAY.replace(day=1)), "endDate": day_ms(TODAY), "page": 1, "pageSize": 1000}
    daily = _post(emu, "/teams/daily-usage-data", body).json()["data"]
    ids = {m["email"]: m["id"] for m in _members(emu).json()["teamMembers"]}
    for member in _post(emu, "/teams/spend", {}).json()["teamMemberSpend"]:
        mine = [r for r in daily if r["email"] == member["email"]]
        usage = sum(r["usageBasedReqs"] for r in mine)
        every = usage + sum(r["subscriptionIncludedReqs"] for r in mine)
        assert member["userId"] == ids[member["email"]] and member["fastPremiumRequests"] == usage
        assert any(abs(member["overallSpendCents"] - every * rate) < 1e-6 for rate in RATES)
        assert abs(member["spendCents"] * every - member["overallSpendCents"] * usage) < 1e-3


@pytest.mark.parametrize("auth", [None, ("key_wrong", ""), ("{key}", "a-password"), "Bearer {key}"])
def test_a_missing_or_wrong_key_is_refused_as_unauthorized(emu: RunningEmulator, auth: Any) -> None:
    key = emu.credentials["cursor_api_key"]
    url = emu.credentials["cursor_base_url"] + "/teams/members"
    if isinstance(auth, str):
        answer = httpx.get(url, headers={"Authorization": auth.format(key=key)})
    else:
        answer = httpx.get(url, auth=(auth[0].format(key=key), auth[1]) if auth else None)
    assert answer.status_code == 401
    assert answer.json() == {"error": "Unauthorized", "message": "Invalid API key"}


def test_a_teams_spent_minute_is_answered_429_with_retry_after_60() -> None:
    with running_emulator(EmulatorConfig(seed=7, users=12, repos=2, today=TODAY, cursor_requests_per_minute=2)) as emu:
        answers = [_members(emu), _post(emu, "/teams/spend", {}), _members(emu)]
        assert [a.status_code for a in answers] == [200, 200, 429]
        assert answers[-1].headers["retry-after"] == "60"
        assert answers[-1].json() == {
            "error": "Too Many Requests",
            "message": "Rate limit exceeded. Please try again later.",
        }
