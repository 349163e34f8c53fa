"""Users active only in the CLI, over HTTP in both dialects: their user line has `used_cli`, the
CLI's object and one `copilot_cli` feature entry as its counts, no IDE, language or model entry;
the aggregate counts them in `daily_active_cli_users` and not in `daily_active_users`, which is
IDE-based (the service's docs), and still adds them to its counts."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from emulator.recordjson import COUNT_FIELDS

from ._served import served

TODAY = date(2026, 8, 20)  # before the documented misattribution windows
DAYS = [TODAY - timedelta(days=back) for back in range(5, 40, 3)]
ARRAYS = ("totals_by_language_feature", "totals_by_language_model", "totals_by_model_feature")


def _cli_only(line: dict) -> bool:
    return line["used_cli"] and not line["totals_by_ide"]


@pytest.mark.parametrize("dialect", ["service", "github"])
def test_cli_only_users_count_as_cli_users_and_not_as_daily_active_users(dialect: str) -> None:
    seen = 0
    with served(dialect=dialect, seed=17, users=40, today=TODAY, history_days=45) as s:
        for scope in ("organization", "enterprise"):
            for day in DAYS:
                lines, aggregate = s.report(scope, "users-1-day", day), s.aggregate(scope, day)
                cli_only = [line for line in lines if _cli_only(line)]
                for line in cli_only:
                    [entry] = line["totals_by_feature"]
                    assert entry["feature"] == "copilot_cli"
                    assert all(entry[k] == line[k] for k in COUNT_FIELDS) and line["code_generation_activity_count"]
                    assert line["totals_by_cli"]["session_count"] > 0 and line["totals_by_cli"]["request_count"] > 0
                    assert not any(line[a] for a in ARRAYS) and line[s.name("used_assistant_app")] is False
                    assert not line["used_agent"] and not line["used_chat"]
                seen += len(cli_only)
                # The service's IDE-based count: lines with activity, but not the CLI-only ones,
                # and the users it confirmed active server-side (their lines show nothing).
                active = [
                    line
                    for line in lines
                    if line not in cli_only
                    and (line["user_initiated_interaction_count"] or line["code_generation_activity_count"])
                ]
                server_side = s.data.server_side_only(scope=scope, day=day)
                assert aggregate["daily_active_users"] == len(active) + len(server_side), (scope, day)
                assert aggregate["daily_active_cli_users"] == sum(line["used_cli"] for line in lines)
                for field in COUNT_FIELDS:
                    assert aggregate[field] == sum(line[field] for line in lines), field
                for member in ("session_count", "request_count", "prompt_count"):
                    assert aggregate.get("totals_by_cli", {}).get(member, 0) == sum(
                        line["totals_by_cli"][member] for line in lines if "totals_by_cli" in line
                    )
    assert seen >= len(DAYS)
