"""The vendors' documented records as rows: every documented figure in its column, the rest in
`extra` and told as drift; a record naming no one, of a day not asked for, or repeated refused."""

import json
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from pipelines.transform.vendor_rows import MISTYPED, UNDECLARED, VendorRows
from pipelines.transform.vendor_values import record_text
from pipelines.vendors.wire import ENDPOINTS
from tests.unit.vendors._answers import CLAUDE_RECORD, CURSOR_DAY, CURSOR_MEMBERS, CURSOR_SPEND

FETCHED = datetime(2025, 8, 10, 9, tzinfo=UTC)


def _rows(endpoint: str, records: list[dict[str, Any]], day: date, **kw: Any) -> VendorRows:
    out = VendorRows(ENDPOINTS[endpoint], day, day, day, FETCHED, kw.pop("final_before", None), **kw)
    for number, record in enumerate(records, 1):
        out.add(number, record_text(record))
    return out


def test_a_claude_code_record_lands_every_documented_figure_and_each_model() -> None:
    out = _rows("claude_code", [CLAUDE_RECORD], date(2025, 8, 8), final_before=date(2025, 8, 9))
    (row,) = out.frame("vendors.claude_code_days").to_dicts()
    assert (row["day"], row["actor_type"], row["actor"], row["email"]) == (
        date(2025, 8, 8),
        "user_actor",
        "user@emaildomain.com",
        "user@emaildomain.com",
    )
    assert (row["num_sessions"], row["lines_added"], row["lines_removed"], row["commits"], row["pull_requests"]) == (
        15,
        342,
        128,
        8,
        2,
    )
    assert (row["edit_tool_accepted"], row["multi_edit_tool_rejected"], row["notebook_edit_tool_rejected"]) == (
        25,
        1,
        2,
    )
    assert (row["terminal_type"], row["customer_type"], row["subscription_type"]) == ("iTerm.app", "api", "enterprise")
    assert row["is_final"] is True and row["extra"] is None
    models = out.frame("vendors.claude_code_models").sort("model").to_dicts()
    assert [(m["model"], m["input_tokens"], m["estimated_cost_cents"], m["currency"]) for m in models] == [
        ("claude-3-5-haiku-20241022", 23100, Decimal(42), "USD"),
        ("claude-sonnet-4-20250514", 45230, Decimal(186), "USD"),
    ]
    assert not out.drift and not out.refused


def test_a_field_no_declaration_names_lands_in_extra_and_is_drift() -> None:
    record = {**CLAUDE_RECORD, "tool_actions": {**CLAUDE_RECORD["tool_actions"], "bash_tool": {"accepted": 3}}}
    record["core_metrics"] = {**record["core_metrics"], "num_sessions": "fifteen"}
    out = _rows("claude_code", [record], date(2025, 8, 8))
    (row,) = out.frame("vendors.claude_code_days").to_dicts()
    assert json.loads(row["extra"]) == {
        "tool_actions": {"bash_tool": {"accepted": 3}},
        "core_metrics": {"num_sessions": "fifteen"},
    }
    assert row["num_sessions"] is None and row["is_final"] is False
    assert out.drift == {
        (date(2025, 8, 8), "tool_actions.bash_tool", UNDECLARED): 1,
        (date(2025, 8, 8), "core_metrics.num_sessions", MISTYPED): 1,
    }


def test_an_api_key_actor_is_kept_by_its_name_and_names_no_email() -> None:
    record = {**CLAUDE_RECORD, "actor": {"type": "api_actor", "api_key_name": "ci-review"}}
    (row,) = _rows("claude_code", [record], date(2025, 8, 8)).frame("vendors.claude_code_days").to_dicts()
    assert (row["actor_type"], row["actor"], row["email"], row["api_key_name"]) == (
        "api_actor",
        "ci-review",
        None,
        "ci-review",
    )


def test_records_naming_no_one_of_another_day_or_repeated_are_refused_with_their_reason() -> None:
    nobody = {**CLAUDE_RECORD, "actor": {"type": "user_actor"}}
    other_day = {**CLAUDE_RECORD, "date": "2025-08-09T00:00:00Z"}
    out = _rows("claude_code", [CLAUDE_RECORD, nobody, other_day, CLAUDE_RECORD], date(2025, 8, 8))
    assert [(n, reason.split(" (")[0]) for n, reason, _ in out.refused] == [
        (2, "no actor.email_address nor actor.api_key_name: it names no one"),
        (3, "its date 2025-08-09 is not a day asked for"),
        (4, "repeats the record of line 1"),
    ]
    assert out.frame("vendors.claude_code_days").height == 1


def test_cursor_s_daily_record_spend_and_members_land_typed() -> None:
    day = date(2024, 3, 18)
    daily = _rows("daily_usage", [CURSOR_DAY], day)
    (usage,) = daily.frame("vendors.cursor_days").to_dicts()
    assert (usage["day"], usage["email"], usage["user_id"], usage["total_tabs_accepted"], usage["most_used_model"]) == (
        day,
        "developer@company.com",
        "12345",
        289,
        "gpt-4",
    )
    assert not daily.drift and usage["extra"] is None
    spend = _rows("spend", CURSOR_SPEND["teamMemberSpend"], day, envelope=CURSOR_SPEND).frame("vendors.cursor_spend")
    columns = ("cycle_start", "email", "user_id", "spend_cents", "overall_spend_cents", "monthly_limit_dollars")
    assert spend.sort("email").select(columns).rows() == [
        (
            date(2024, 2, 27),
            "admin@company.com",
            "user_kljUvI0ASZORvSEXf9hV0ydcso",
            Decimal("1875.500123"),
            Decimal("3200.750456"),
            None,
        ),
        (
            date(2024, 2, 27),
            "developer@company.com",
            "user_PDSPmvukpYgZEDXsoNirw3CFhy",
            Decimal("2450.125487"),
            Decimal("2450.125487"),
            Decimal(200),
        ),
    ]
    members = _rows("members", CURSOR_MEMBERS["teamMembers"], day).frame("vendors.cursor_members")
    assert members.select("snapshot_day", "email", "user_id", "role", "is_removed").rows()[0] == (
        day,
        "developer@company.com",
        "user_PDSPmvukpYgZEDXsoNirw3CFhy",
        "member",
        False,
    )
