"""The emulated Claude Code analytics: one record per active user and day, figures that only grow
as the clock moves and stop once final, costs at the models' list prices."""

from __future__ import annotations

from datetime import date, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.reportdata import ReportData
from emulator.vendor_claude_data import API_KEY_NAME, PRICES, ClaudeCodeData, cost_cents
from emulator.vendor_people import VendorPeople

TODAY = date(2026, 11, 20)
FIRST_DAY = TODAY - timedelta(days=60)
_DATA = ClaudeCodeData(
    VendorPeople(ReportData(seed=7, users=40, org="acme", enterprise="acme-corp", first_day=FIRST_DAY))
)


def _numbers(record: dict) -> list[int]:
    core = record["core_metrics"]
    out = [core["num_sessions"], *core["lines_of_code"].values(), core["commits_by_claude_code"]]
    out += [core["pull_requests_by_claude_code"]]
    out += [n for tool in record["tool_actions"].values() for n in tool.values()]
    for model in record["model_breakdown"]:
        out += [*model["tokens"].values(), model["estimated_cost"]["amount"]]
    return out


def _by_actor(records: list[dict]) -> dict[str, dict]:
    return {str(sorted(r["actor"].items())): r for r in records}


def test_a_day_holds_one_record_per_active_user_by_email_then_the_ci_key() -> None:
    people = _DATA.people
    day = TODAY - timedelta(days=10)
    records = _DATA.records(day, today=TODAY)
    users = [r["actor"]["email_address"] for r in records if r["actor"]["type"] == "user_actor"]
    expected = [p.email for p in people.roster("claude") if people.active("claude", p.index, day)]
    assert users == expected and users == sorted(users)
    keys = [r for r in records if r["actor"]["type"] == "api_actor"]
    assert [r["actor"] for r in keys] in ([], [{"type": "api_actor", "api_key_name": API_KEY_NAME}])
    assert all(r["date"] == f"{day.isoformat()}T00:00:00Z" for r in records)


def test_no_records_before_the_history_nor_after_today() -> None:
    assert _DATA.records(FIRST_DAY - timedelta(days=1), today=TODAY) == []
    assert _DATA.records(TODAY + timedelta(days=1), today=TODAY) == []


@settings(max_examples=25, deadline=None)
@given(age=st.integers(min_value=0, max_value=5))
def test_a_days_figures_only_grow_as_the_clock_moves_and_never_change_once_final(age: int) -> None:
    day = TODAY - timedelta(days=age)
    now = _by_actor(_DATA.records(day, today=TODAY))
    later = _by_actor(_DATA.records(day, today=TODAY + timedelta(days=1)))
    assert now.keys() == later.keys()
    for actor, record in now.items():
        assert all(a <= b for a, b in zip(_numbers(record), _numbers(later[actor]), strict=True))
    if age >= 2:
        assert now == later


def test_the_estimated_cost_is_the_tokens_at_the_models_list_prices_in_cents() -> None:
    tokens = {"input": 1_000_000, "output": 1_000_000, "cache_read": 1_000_000, "cache_creation": 1_000_000}
    assert cost_cents("claude-sonnet-4-5-20250929", tokens) == 300 + 1500 + 30 + 375
    records = [r for n in range(20) for r in _DATA.records(TODAY - timedelta(days=n), today=TODAY)]
    models = {m["model"] for r in records for m in r["model_breakdown"]}
    assert models <= PRICES.keys() and len(models) >= 2
    for record in records:
        for model in record["model_breakdown"]:
            assert model["estimated_cost"] == {"currency": "USD", "amount": cost_cents(model["model"], model["tokens"])}


def test_a_records_figures_hang_together() -> None:
    for n in range(30):
        for record in _DATA.records(TODAY - timedelta(days=n), today=TODAY):
            core = record["core_metrics"]
            assert core["num_sessions"] >= 1
            assert 0 <= core["pull_requests_by_claude_code"] <= core["commits_by_claude_code"] <= core["num_sessions"]
            assert core["lines_of_code"]["removed"] <= core["lines_of_code"]["added"]
            assert list(record["tool_actions"]) == ["edit_tool", "multi_edit_tool", "write_tool", "notebook_edit_tool"]
