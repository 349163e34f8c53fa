"""The vendors beside the service: the credentials name each served vendor's base URL and key,
the switch serves the service alone, the vendors' people join the service's by the emails its
seats show (but those kept private and the outsiders), and their requests are counted."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import httpx
import pytest

from emulator import EmulatorConfig, EmulatorError, RunningEmulator, running_emulator
from emulator.config import parse_vendors
from emulator.seat import holder

TODAY = date(2026, 11, 20)
_VENDOR_KEYS = {"anthropic_base_url", "anthropic_admin_key", "cursor_base_url", "cursor_api_key"}


@pytest.fixture(scope="module")
def emu() -> Iterator[RunningEmulator]:
    with running_emulator(EmulatorConfig(seed=7, users=40, repos=2, today=TODAY)) as running:
        yield running


def _vendor_emails(emu: RunningEmulator) -> tuple[set[str], set[str]]:
    creds = emu.credentials
    cursor = httpx.get(creds["cursor_base_url"] + "/teams/members", auth=(creds["cursor_api_key"], ""))
    claude: set[str] = set()
    for day in range(2, 16):  # two weeks of days: everyone who uses it at all shows
        answer = httpx.get(
            creds["anthropic_base_url"] + "/v1/organizations/usage_report/claude_code",
            params={"starting_at": f"2026-11-{day:02d}", "limit": 1000},
            headers={"x-api-key": creds["anthropic_admin_key"]},
        )
        claude |= {r["actor"]["email_address"] for r in answer.json()["data"] if "email_address" in r["actor"]}
    return claude, {m["email"] for m in cursor.json()["teamMembers"]}


def test_the_credentials_carry_each_vendors_base_url_and_key(emu: RunningEmulator) -> None:
    creds = emu.credentials
    assert creds.keys() >= _VENDOR_KEYS
    assert creds["anthropic_base_url"] == emu.base_url + "/vendors/anthropic"
    assert creds["cursor_base_url"] == emu.base_url + "/vendors/cursor"
    assert creds["anthropic_admin_key"].startswith("sk-ant-admin01-")
    assert creds["cursor_api_key"].startswith("key_") and len(creds["cursor_api_key"]) == 68


def test_the_vendors_people_join_the_services_by_the_emails_its_seats_show(emu: RunningEmulator) -> None:
    headers = {"Authorization": f"token {emu.credentials['token']}"}
    seats = httpx.get(emu.base_url + "/enterprises/acme-corp/assistant/billing/seats?per_page=100", headers=headers)
    shown = {s["assignee"]["email"] for s in seats.json()["seats"] if s["assignee"]["email"]}
    assert seats.json()["total_seats"] == 60  # every enterprise user (40 and 20 of acme-labs)
    index = {holder(u)[1]: u for u in range(60)}
    for emails in _vendor_emails(emu):
        outsiders = {e for e in emails if e not in index}
        insiders = emails - outsiders
        assert outsiders and all(e.endswith("@contractors.example") for e in outsiders)
        # A seat keeps the email of u % 4 == 2 private: those need the operator's file.
        assert insiders - shown == {e for e in insiders if index[e] % 4 == 2}
        assert len(insiders & shown) > len(insiders - shown)


def test_the_vendors_requests_are_counted_apart_from_the_services(emu: RunningEmulator) -> None:
    _vendor_emails(emu)
    stats = emu.stats()
    assert stats["requests"]["vendor 200"] >= 2
    assert stats["paths"]["GET /vendors/cursor/teams/members 200"] >= 1


def test_without_vendors_the_service_is_served_alone() -> None:
    with running_emulator(EmulatorConfig(seed=7, users=12, repos=2, today=TODAY, vendors=())) as emu:
        assert not _VENDOR_KEYS & emu.credentials.keys()
        for path in ("/vendors/anthropic/v1/organizations/usage_report/claude_code", "/vendors/cursor/teams/members"):
            assert httpx.get(emu.base_url + path).status_code == 404
        headers = {"Authorization": f"token {emu.credentials['token']}"}
        assert httpx.get(emu.base_url + "/orgs/acme/members", headers=headers).status_code == 200


def test_one_vendor_alone_names_only_its_own_credentials() -> None:
    with running_emulator(EmulatorConfig(seed=7, users=12, repos=2, today=TODAY, vendors=("cursor",))) as emu:
        assert _VENDOR_KEYS & emu.credentials.keys() == {"cursor_base_url", "cursor_api_key"}
        claude = emu.base_url + "/vendors/anthropic/v1/organizations/usage_report/claude_code"
        assert httpx.get(claude, params={"starting_at": "2026-11-12"}).status_code == 404


def test_the_vendors_switch_parses_from_the_cli_form() -> None:
    assert parse_vendors("claude,cursor") == ("claude", "cursor")
    assert parse_vendors("none") == parse_vendors("") == ()
    with pytest.raises(EmulatorError, match="unknown vendors windsurf"):
        parse_vendors("claude,windsurf")
    with pytest.raises(EmulatorError, match="unknown vendors"):
        EmulatorConfig(vendors=("copilot",))
