"""The service's documented misattribution windows, served over HTTP in both dialects as it served
them: in September 2026 desktop-app activity came as CLI activity (app users fell, CLI users rose),
and from 2026-10-06 IDE agent sessions were missing or counted as CLI until the user's IDE updated
(VS Code within three weeks, the other IDEs in November). The user lines say so and the aggregate
adds up from them, so the declared incidents (pipelines/warehouse/incidents.py) mark real
differences."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from statistics import mean

import pytest

from emulator.misattribution import APP_AS_CLI, SDK_AS_CLI, SDK_MISSING

from ._served import Served, served

TODAY = date(2026, 11, 20)
AGENT_FEATURES = {"chat_panel_agent_mode", "agent_edit"}


def _days(first: date, last: date) -> list[date]:
    return [first + timedelta(days=i) for i in range((last - first).days + 1)]


@pytest.fixture(scope="module", params=["service", "github"])
def s(request: pytest.FixtureRequest) -> Iterator[Served]:
    with served(dialect=request.param, seed=23, users=60, today=TODAY, history_days=125) as running:
        yield running


def _mean(s: Served, days: list[date], field: str) -> float:
    return mean(s.aggregate("organization", day)[s.name(field)] for day in days)


def test_in_september_app_users_fall_and_cli_users_rise_as_app_activity_is_served_as_cli(s: Served) -> None:
    around = _days(date(2026, 8, 10), date(2026, 8, 31)) + _days(date(2026, 10, 1), date(2026, 10, 5))
    september = _days(date(2026, 9, 1), date(2026, 9, 30))
    app, cli = "daily_active_assistant_app_users", "daily_active_cli_users"
    assert _mean(s, september, app) < 0.4 * _mean(s, around, app)
    assert _mean(s, september, cli) > 1.15 * _mean(s, around, cli)
    moved = 0
    for day in september[::6]:
        lines = {line["user_id"]: line for line in s.report("organization", "users-1-day", day)}
        shifted = s.data.misattributed(scope="organization", day=day)
        for user_id in (u for u, what in shifted.items() if what == APP_AS_CLI):
            line = lines[user_id]
            features = {e["feature"] for e in line["totals_by_feature"]}
            assert line[s.name("used_assistant_app")] is False and s.name("totals_by_assistant_app") not in line
            assert line["used_cli"] is True and line["totals_by_cli"]["session_count"] > 0
            assert "copilot_cli" in features and "copilot_app" not in features
            moved += 1
        aggregate = s.aggregate("organization", day)
        assert aggregate[s.name(app)] == sum(line[s.name("used_assistant_app")] for line in lines.values())
        assert aggregate[cli] == sum(line["used_cli"] for line in lines.values())
    assert moved
    # Outside September nobody's app activity comes as the CLI's.
    assert not any(APP_AS_CLI in s.data.misattributed(scope="organization", day=day).values() for day in around)


def test_from_2026_10_06_ide_agent_sessions_are_missing_or_cli_until_the_ide_updates(s: Served) -> None:
    before = _days(date(2026, 9, 24), date(2026, 10, 5))
    first_days = _days(date(2026, 10, 6), date(2026, 10, 9))
    vscode_updated = _days(date(2026, 10, 27), date(2026, 11, 2))
    vscode = "daily_active_vscode_agent_users"
    baseline = _mean(s, before, vscode)
    assert baseline > 0
    assert _mean(s, first_days, vscode) < 0.2 * baseline
    assert _mean(s, vscode_updated, vscode) > 0.5 * baseline  # VS Code 1.139.0 is out and installed
    seen = set()
    for day in first_days[:2] + vscode_updated[:1]:
        lines = {line["user_id"]: line for line in s.report("organization", "users-1-day", day)}
        for user_id, what in s.data.misattributed(scope="organization", day=day).items():
            line = lines[user_id]
            assert not {e["feature"] for e in line["totals_by_feature"]} & AGENT_FEATURES
            assert line["used_agent"] is False and line["used_vscode_agent"] is False
            if what == SDK_AS_CLI:
                assert line["used_cli"] is True and "copilot_cli" in {e["feature"] for e in line["totals_by_feature"]}
            seen.add(what)
        aggregate = s.aggregate("organization", day)
        assert aggregate[vscode] == sum(line["used_vscode_agent"] for line in lines.values())
        assert aggregate["daily_active_cli_users"] == sum(line["used_cli"] for line in lines.values())
    assert seen == {SDK_AS_CLI, SDK_MISSING}
    # The other IDEs' agent days were still moved after VS Code's update, and none after November.
    late = s.data.misattributed(scope="organization", day=date(2026, 11, 5))
    assert late and not s.data.misattributed(scope="organization", day=date(2026, 11, 30))
