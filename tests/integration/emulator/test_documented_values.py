"""The emulator serves what the service's docs describe, over HTTP, in both dialects: every
documented value of an enumerated field (pipelines/transform/values.py) on some day of a year,
none outside a closed list; and the documented shapes of a user-level line, day by day across
the dates the service changed them."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date, timedelta
from typing import Any

import httpx
import pytest

from emulator import EmulatorConfig, RunningEmulator, running_emulator
from emulator.dialect import wire_for
from pipelines.transform.values import DOCUMENTED_VALUES

from .conftest import TODAY

YEAR = 365
SERVER_SIDE_FROM, APP_ONLY_FROM, PLAN_MODE_FROM = date(2026, 6, 15), date(2026, 7, 28), date(2026, 3, 2)


@pytest.fixture(scope="module", params=["service", "github"])
def year(request: pytest.FixtureRequest) -> Iterator[tuple[RunningEmulator, httpx.Client, str]]:
    config = EmulatorConfig(
        seed=43, users=24, repos=6, today=TODAY, dialect=request.param, history_days=YEAR, rate_limit=1_000_000
    )
    with running_emulator(config) as emu:
        product = wire_for(request.param).product
        with httpx.Client(
            base_url=emu.base_url, timeout=30, headers={"Authorization": f"Bearer {emu.credentials['token']}"}
        ) as client:
            yield emu, client, product


def _report(client: httpx.Client, path: str, day: date) -> list[dict[str, Any]]:
    meta = client.get(path, params={"day": day.isoformat()})
    if meta.status_code in (204, 404):  # a day the report does not exist (repos-1-day before its GA)
        return []
    assert meta.status_code == 200, (path, day, meta.text)
    return [
        json.loads(line)
        for link in meta.json()["download_links"]
        for line in httpx.get(link, timeout=30).content.splitlines()
    ]


def _at(value: Any, segments: list[str], name: Any) -> Iterator[Any]:
    """The values at a declared path (`a.b[].c`), each segment under the dialect's wire name."""
    if not segments:
        yield value
        return
    head, many = segments[0].removesuffix("[]"), segments[0].endswith("[]")
    inner = value.get(name(head)) if isinstance(value, dict) else None
    for item in (inner or []) if many else ([] if inner is None else [inner]):
        yield from _at(item, segments[1:], name)


def test_every_documented_value_is_served_on_some_day_of_a_year_and_none_outside_a_closed_list(year):
    emu, client, product = year
    name = wire_for(emu.state.config.dialect).record_name
    base = f"/orgs/acme/{product}/metrics/reports"
    served: dict[str, set[Any]] = {path: set() for path in DOCUMENTED_VALUES}
    for back in range(1, YEAR + 1):
        day = TODAY - timedelta(days=back)
        records = _report(client, f"{base}/organization-1-day", day) + _report(client, f"{base}/repos-1-day", day)
        if back % 30 == 1:  # the enterprise's and the user-level lines, a day a month
            records += _report(client, f"/enterprises/acme-corp/{product}/metrics/reports/enterprise-1-day", day)
            records += _report(client, f"{base}/users-1-day", day)
        for path in DOCUMENTED_VALUES:
            for record in records:
                served[path].update(_at(record, path.split("."), name))
    for path, (documented, closed) in DOCUMENTED_VALUES.items():
        served[path].discard(None)
        assert set(documented) <= served[path], f"{path}: never served {sorted(set(documented) - served[path])}"
        if closed:
            assert served[path] <= set(documented), f"{path}: served beyond the docs {served[path] - set(documented)}"


def _users(client: httpx.Client, product: str, day: date) -> list[dict[str, Any]]:
    return _report(client, f"/orgs/acme/{product}/metrics/reports/users-1-day", day)


def test_user_lines_have_the_documented_shapes_on_every_side_of_the_service_s_changes(year):
    """Review flags null without a signal; the coding- and cloud-agent flags both sent, equal;
    organization lines name the enterprise; model arrays chat only; language x feature without
    interactions; server-side-only users (from 2026-06-15) counted by the aggregate with empty
    lines; desktop-app-only users (from 2026-07-28) with one copilot_app entry as their counts;
    CLI-only users with one copilot_cli entry, outside the IDE-based daily_active_users."""
    emu, client, product = year
    name = wire_for(emu.state.config.dialect).record_name
    [enterprise] = _report(
        client, f"/enterprises/acme-corp/{product}/metrics/reports/enterprise-1-day", TODAY - timedelta(days=5)
    )
    enterprise_id = enterprise["enterprise_id"]
    seen = {
        "server_side": set(),
        "app_only": set(),
        "cli_only": set(),
        "plan": set(),
        "review_null": 0,
        "review_set": 0,
    }
    for back in range(1, YEAR + 1, 7):
        day = TODAY - timedelta(days=back)
        lines = _users(client, product, day)
        [aggregate] = _report(client, f"/orgs/acme/{product}/metrics/reports/organization-1-day", day)
        active = 0
        for line in lines:
            assert line["enterprise_id"] == enterprise_id and line["organization_id"] == aggregate["organization_id"]
            review = (line[name("used_assistant_code_review_active")], line[name("used_assistant_code_review_passive")])
            assert review in {(None, None), (True, False), (False, True)}
            seen["review_null" if review == (None, None) else "review_set"] += 1
            assert line[name("used_assistant_coding_agent")] == line[name("used_assistant_cloud_agent")]
            features = {e["feature"] for e in line["totals_by_feature"]}
            assert not any("user_initiated_interaction_count" in e for e in line["totals_by_language_feature"])
            assert not {e["feature"] for e in line["totals_by_model_feature"]} & {
                "code_completion",
                "others",
                "unknown",
                "copilot_app",
                "copilot_cli",
            }
            if "chat_panel_plan_mode" in features:
                seen["plan"].add(day)
            if line["totals_by_feature"] and not line["totals_by_ide"]:  # the desktop app or the CLI only
                cli_only = line["used_cli"]
                assert features == {"copilot_cli" if cli_only else "copilot_app"}
                assert line[name("used_assistant_app")] is not cli_only
                [entry] = line["totals_by_feature"]
                assert all(entry[k] == line[k] for k in entry if k != "feature")
                seen["cli_only" if cli_only else "app_only"].add(day)
                if cli_only:  # outside the service's IDE-based daily_active_users
                    continue
            active += bool(line["user_initiated_interaction_count"] or line["code_generation_activity_count"])
        if aggregate["daily_active_users"] > active:  # users the service confirmed server-side only
            seen["server_side"].add(day)
    assert seen["review_null"] and seen["review_set"]
    assert seen["server_side"] and min(seen["server_side"]) >= SERVER_SIDE_FROM
    assert seen["app_only"] and min(seen["app_only"]) >= APP_ONLY_FROM
    assert seen["cli_only"]
    assert seen["plan"] and min(seen["plan"]) >= PLAN_MODE_FROM
