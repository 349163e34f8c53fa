"""Users the service counts beyond its IDE telemetry, on any day of a year and any completeness:
the aggregate still adds up from the user lines, counting the server-side-only users beside the
lines with activity, and neither class exists before the day the service began counting it."""

from __future__ import annotations

import json
from datetime import date, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.misattribution import APP_AS_CLI
from emulator.recordjson import COUNT_FIELDS
from emulator.reportdata import ReportData
from emulator.telemetry import APP_IN_COUNTS_FROM, SERVER_SIDE_FROM

FIRST_DAY = date(2025, 11, 20)
DATA = ReportData(seed=5, users=30, org="acme", enterprise="acme-corp", first_day=FIRST_DAY)


def _lines(scope: str, day: date, c: float) -> list[dict]:
    size = DATA.user_count(scope=scope)
    return [
        json.loads(line)
        for line in DATA.user_lines(scope=scope, days=[day], completeness_for=lambda _: c, start=0, stop=size)
    ]


@settings(max_examples=40, deadline=None)
@given(
    offset=st.integers(min_value=0, max_value=364),
    c=st.sampled_from([1.0, 0.9, 0.6]),
    scope=st.sampled_from(["organization", "enterprise"]),
)
def test_the_aggregate_adds_up_from_the_lines_and_the_server_side_only_users_on_any_day(offset, c, scope):
    day = FIRST_DAY + timedelta(days=offset)
    lines = _lines(scope, day, c)
    aggregate = DATA.aggregate_record(scope=scope, day=day, completeness=c)
    assert [aggregate[f] for f in COUNT_FIELDS] == [sum(r[f] for r in lines) for f in COUNT_FIELDS]
    server_side = DATA.server_side_only(scope=scope, day=day)
    # A line active in the CLI alone (no IDE entry) is outside the service's IDE-based count.
    cli_only = {r["user_id"] for r in lines if not r["totals_by_ide"] and r["used_cli"]}
    active = {
        r["user_id"] for r in lines if (r["user_initiated_interaction_count"] or r["code_generation_activity_count"])
    } - cli_only
    assert aggregate["daily_active_cli_users"] == sum(r["used_cli"] for r in lines)
    # Inside the documented misattribution windows too (emulator/misattribution.py): each surface's
    # users are the lines that say so, whatever the service served in their place.
    assert aggregate["daily_active_assistant_app_users"] == sum(r["used_assistant_app"] for r in lines)
    assert aggregate["daily_active_vscode_agent_users"] == sum(r["used_vscode_agent"] for r in lines)
    moved = {u for u, what in DATA.misattributed(scope=scope, day=day).items() if what != APP_AS_CLI}
    assert not any(r["used_agent"] or r["used_vscode_agent"] for r in lines if r["user_id"] in moved)
    assert not server_side & active
    assert aggregate["daily_active_users"] == len(active) + len(server_side)
    app_only = [r for r in lines if r["totals_by_feature"] and not r["totals_by_ide"] and not r["used_cli"]]
    if day < SERVER_SIDE_FROM:
        assert not server_side
    if day < APP_IN_COUNTS_FROM:
        assert not app_only
    for r in lines:
        assert [sum(e[f] for e in r["totals_by_feature"]) for f in COUNT_FIELDS] == [r[f] for f in COUNT_FIELDS]
