"""The emulated Claude Code analytics over HTTP, against the vendor's docs (docs/vendors.md): the
documented record, one day a request paged by an opaque cursor, Anthropic's error shape for a
wrong key and a bad request, 429 with retry-after once a key's minute is spent, and a day that
grows until final."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

import httpx
import pytest

from emulator import EmulatorConfig, RunningEmulator, running_emulator
from tests.integration.emulator._vendor_docs import differences, example

TODAY = date(2026, 11, 20)
PATH = "/v1/organizations/usage_report/claude_code"


@pytest.fixture(scope="module")
def emu() -> Iterator[RunningEmulator]:
    config = EmulatorConfig(seed=7, users=40, repos=2, today=TODAY, claude_requests_per_minute=10_000)
    with running_emulator(config) as running:
        yield running


def _get(emu: RunningEmulator, key: str | None = None, **params: Any) -> httpx.Response:
    creds = emu.credentials
    headers = {"anthropic-version": "2023-06-01", "x-api-key": key or creds["anthropic_admin_key"]}
    return httpx.get(creds["anthropic_base_url"] + PATH, params=params, headers=headers)


def _all_pages(emu: RunningEmulator, day: str, limit: int) -> list[dict[str, Any]]:
    records: list[dict[str, Any]] = []
    body = _get(emu, starting_at=day, limit=limit).json()
    records += body["data"]
    while body["has_more"]:
        assert len(body["data"]) == limit
        body = _get(emu, starting_at=day, limit=limit, page=body["next_page"]).json()
        records += body["data"]
    assert body["next_page"] is None
    return records


def test_a_page_has_the_fields_and_types_of_the_docs_example(emu: RunningEmulator) -> None:
    documented = example("has_more")
    body = _get(emu, starting_at="2026-11-12", limit=1000).json()
    users = [r for r in body["data"] if r["actor"]["type"] == "user_actor"]
    assert len(users) >= 10
    assert differences({**body, "data": users}, documented) == []


def test_an_api_keys_record_is_the_documented_api_actor_without_a_subscription(emu: RunningEmulator) -> None:
    documented = example("has_more")
    as_api = {**documented, "data": [{**documented["data"][0], "actor": {"api_key_name": "", "type": "api_actor"}}]}
    days = [(TODAY - timedelta(days=n)).isoformat() for n in range(2, 12)]
    keys = [
        r for day in days for r in _get(emu, starting_at=day, limit=1000).json()["data"] if "api_key_name" in r["actor"]
    ]
    assert keys and all(r["customer_type"] == "api" for r in keys)
    assert (
        differences(
            {"data": keys, "has_more": False, "next_page": None}, as_api, optional=frozenset({"subscription_type"})
        )
        == []
    )


def test_a_day_is_paged_by_its_cursor_until_has_more_is_false(emu: RunningEmulator) -> None:
    whole = _get(emu, starting_at="2026-11-12", limit=1000).json()
    assert whole["has_more"] is False and whole["next_page"] is None
    assert _all_pages(emu, "2026-11-12", 7) == whole["data"]
    assert len(_get(emu, starting_at="2026-11-12").json()["data"]) == min(20, len(whole["data"]))
    assert {r["date"] for r in whole["data"]} == {"2026-11-12T00:00:00Z"}


def test_a_day_before_the_history_or_after_today_has_no_records(emu: RunningEmulator) -> None:
    for day in ("2026-09-01", "2026-11-21"):
        assert _get(emu, starting_at=day).json() == {"data": [], "has_more": False, "next_page": None}


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"starting_at": "2026-11-12T00:00:00Z"},
        {"starting_at": "20261112"},
        {"starting_at": "2026-11-12", "limit": 0},
        {"starting_at": "2026-11-12", "limit": 1001},
        {"starting_at": "2026-11-12", "limit": "many"},
        {"starting_at": "2026-11-12", "page": "page_bm90IGEgY3Vyc29y"},
    ],
)
def test_a_bad_request_is_refused_in_anthropics_shape(emu: RunningEmulator, params: dict[str, Any]) -> None:
    answer = _get(emu, **params)
    assert answer.status_code == 400
    body = answer.json()
    assert body["type"] == "error" and body["error"]["type"] == "invalid_request_error"
    assert body["error"]["message"] and body["request_id"].startswith("req_")


def test_a_cursor_of_another_day_is_refused(emu: RunningEmulator) -> None:
    cursor = _get(emu, starting_at="2026-11-12", limit=2).json()["next_page"]
    assert _get(emu, starting_at="2026-11-13", page=cursor).status_code == 400


@pytest.mark.parametrize("key", ["", "sk-ant-admin01-wrong", "sk-ant-api03-a-standard-key"])
def test_a_missing_or_wrong_key_is_refused_as_an_authentication_error(emu: RunningEmulator, key: str) -> None:
    headers = {"anthropic-version": "2023-06-01"} | ({"x-api-key": key} if key else {})
    answer = httpx.get(
        emu.credentials["anthropic_base_url"] + PATH, params={"starting_at": "2026-11-12"}, headers=headers
    )
    assert answer.status_code == 401
    body = answer.json()
    assert body["type"] == "error" and body["error"] == {"type": "authentication_error", "message": "invalid x-api-key"}
    assert answer.headers["request-id"] == body["request_id"]


def test_today_and_yesterday_grow_until_final_and_paging_keeps_the_day_it_began_on() -> None:
    config = EmulatorConfig(seed=7, users=40, repos=2, today=TODAY, claude_requests_per_minute=10_000)
    with running_emulator(config) as emu:
        day = TODAY.isoformat()
        growing = []
        first_page = _get(emu, starting_at=day, limit=2).json()
        for n in range(4):
            emu.set_today(TODAY + timedelta(days=n))
            growing.append(_get(emu, starting_at=day, limit=1000).json()["data"])
        sessions = [sum(r["core_metrics"]["num_sessions"] for r in records) for records in growing]
        lines = [sum(r["core_metrics"]["lines_of_code"]["added"] for r in records) for records in growing]
        assert lines[0] < lines[1] < lines[2] == lines[3] and sessions[0] <= sessions[1] <= sessions[2]
        assert growing[2] == growing[3]
        # The clock moved two days since the first page: the second still answers as of then.
        rest = _get(emu, starting_at=day, limit=1000, page=first_page["next_page"]).json()["data"]
        emu.set_today(TODAY)
        assert first_page["data"] + rest == _get(emu, starting_at=day, limit=1000).json()["data"]


def test_a_keys_spent_minute_is_answered_429_with_retry_after() -> None:
    with running_emulator(EmulatorConfig(seed=7, users=12, repos=2, today=TODAY, claude_requests_per_minute=3)) as emu:
        answers = [_get(emu, starting_at="2026-11-12") for _ in range(4)]
        assert [a.status_code for a in answers] == [200, 200, 200, 429]
        refused = answers[-1]
        assert refused.json()["error"]["type"] == "rate_limit_error"
        assert 1 <= int(refused.headers["retry-after"]) <= 60
        # A wrong key is refused before the limit is counted: it spends nothing.
        assert _get(emu, key="sk-ant-admin01-wrong", starting_at="2026-11-12").status_code == 401
