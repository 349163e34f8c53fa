"""Who is active: the service's daily_active_users against ours from user lines.

Over loopback, the emulator's year: the service counts users its server-side telemetry alone
confirmed (since 2026-06-15) and users active only in the desktop app (since 2026-07-28), and
bi.reconciliation names each class and leaves nothing unexplained. On a real DuckDB file: every
documented surface makes a team member active (a property over any mix of signals), and the
classes the emulator never serves (CLI only, the app before 2026-07-28) are named, not blamed.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator import EmulatorConfig, running_emulator
from pipelines.ingest import ingest_report
from pipelines.service import ReportRef, ServiceClient
from pipelines.warehouse import migrate
from pipelines.warehouse.rollups import refresh_rollups
from tests._emulator import settings_for
from tests.integration.bi._warehouse import INSERT_AGENT_ACTIVITY, INSERT_USER_TEAM_DAY
from tests.integration.ingest.conftest import FAST_RETRY

TODAY = date(2026, 11, 20)
# Every 28th day of the emulator's year, each side of the service's two changes, and a
# provisional day.
YEAR_DAYS = sorted(
    {date(2025, 11, 1) + timedelta(days=28 * n) for n in range(14)}
    | {date(2026, 6, 14), date(2026, 6, 15), date(2026, 7, 27), date(2026, 7, 28), date(2026, 11, 18)}
)
TELEMETRY_FROM, APP_FROM = date(2026, 6, 15), date(2026, 7, 28)
ORG, ENT = ("organization", "acme"), ("enterprise", "acme-corp")
FETCHED = datetime(2026, 11, 20, 6, tzinfo=UTC)


@pytest.fixture(scope="module")
def year(tmp_path_factory: pytest.TempPathFactory) -> Iterator[duckdb.DuckDBPyConnection]:
    path = tmp_path_factory.mktemp("year")
    conn = duckdb.connect(str(path / "w.duckdb"))
    migrate(conn)
    config = EmulatorConfig(seed=11, users=60, today=TODAY, history_days=400)
    with (
        running_emulator(config) as emu,
        ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as client,
    ):
        for scope in (ORG, ENT):
            for day in YEAR_DAYS:
                for level in ("aggregate", "user"):
                    ingest_report(
                        client=client, ref=ReportRef(*scope, "1-day", level, day), conn=conn, raw_dir=path / "raw"
                    )
    yield conn
    conn.close()


def test_the_emulator_s_year_reconciles_with_nothing_unexplained(year: duckdb.DuckDBPyConnection) -> None:
    rows = year.execute(
        "SELECT scope, day, comparison, measure, difference, residual_difference, status, reason"
        " FROM bi.reconciliation WHERE status NOT IN ('agrees', 'not comparable')"
    ).fetchall()
    assert [r for r in rows if r[6] == "unexplained"] == []
    assert all(r[7] for r in rows)
    # Every day of both scopes was compared: the year is not reconciled by skipping it.
    compared = year.execute(
        "SELECT count(DISTINCT (scope, day)) FROM bi.reconciliation"
        " WHERE comparison = 'aggregate vs users' AND measure = 'active_users' AND status <> 'not comparable'"
    ).fetchone()
    assert compared == (2 * len(YEAR_DAYS),)
    # The emulator counts as the service documents: the classes account for every active user.
    residuals = year.execute(
        "SELECT DISTINCT residual_difference FROM bi.reconciliation"
        " WHERE comparison = 'aggregate vs users' AND measure = 'active_users'"
    ).fetchall()
    assert residuals == [(0,)]


def test_telemetry_only_users_are_counted_from_2026_06_15_and_named(year: duckdb.DuckDBPyConnection) -> None:
    rows = year.execute(
        "SELECT day, telemetry_only_users, difference, residual_difference, status, reason FROM bi.reconciliation"
        " WHERE comparison = 'aggregate vs users' AND measure = 'active_users' ORDER BY scope, day"
    ).fetchall()
    before = [r for r in rows if r[0] < TELEMETRY_FROM]
    after = [r for r in rows if r[0] >= TELEMETRY_FROM]
    assert before and all(r[1] == 0 for r in before)
    assert sum(r[1] for r in after) > 0, "the emulator serves telemetry-only users after 2026-06-15"
    for day, telemetry, difference, residual, status, reason in after:
        if telemetry:
            assert (status, residual) == ("explained", 0) or abs(residual) <= 0.01 * difference, (day, reason)
            assert f"{telemetry} user(s) the service counts from its server-side telemetry alone" in reason


def test_app_only_users_are_counted_by_both_sides_from_2026_07_28(year: duckdb.DuckDBPyConnection) -> None:
    rows = year.execute(
        "SELECT day, app_only_users FROM core.user_report_days WHERE scope = 'organization' ORDER BY day"
    ).fetchall()
    assert all(app == 0 for day, app in rows if day < APP_FROM)
    assert sum(app for day, app in rows if day >= APP_FROM) > 0, "the emulator serves app-only users"
    # From that day the service counts them as we do: no difference for them in the view.
    shown = year.execute(
        "SELECT count(*) FROM bi.reconciliation WHERE measure = 'active_users' AND app_only_users > 0"
    ).fetchone()
    assert shown == (0,)


def test_the_headline_is_the_service_s_figure_beside_ours_from_user_lines(year: duckdb.DuckDBPyConnection) -> None:
    rows = year.execute(
        "SELECT a.day, a.daily_active_users, r.reported_value, r.compared_value, u.any_surface_active_users"
        " FROM bi.assistant_activity_daily AS a"
        " JOIN bi.reconciliation AS r ON r.scope = a.scope AND r.day = a.day"
        "  AND r.comparison = 'aggregate vs users' AND r.measure = 'active_users'"
        " JOIN core.user_report_days AS u ON u.scope = a.scope AND u.day = a.day"
        " WHERE a.scope = 'organization'"
    ).fetchall()
    assert len(rows) == len(YEAR_DAYS)
    assert all(service == reported and ours == lines for _, service, reported, ours, lines in rows)
    assert any(service > ours for day, service, _, ours, _ in rows if day >= TELEMETRY_FROM)


# ----- a real DuckDB file, rows by hand: the classes the emulator never serves ----------------

SIGNALS = (
    "user_initiated_interaction_count",
    "code_generation_activity_count",
    "used_chat",
    "used_agent",
    "used_cli",
    "used_assistant_app",
    "used_assistant_cloud_agent",
    "used_vscode_agent",
    "used_assistant_code_review_active",
    "used_assistant_code_review_passive",
)
# Every signal but a passive code review makes a user active (docs/bi.md, "Active users"); an IDE
# breakdown entry with no counts is no activity.
ACTIVE_SIGNALS = frozenset(SIGNALS) - {"used_assistant_code_review_passive"} | {"third_party_agent"}
DAY = date(2026, 11, 2)
TEAM = 7


@pytest.fixture(scope="module")
def hand(tmp_path_factory: pytest.TempPathFactory) -> Iterator[duckdb.DuckDBPyConnection]:
    conn = duckdb.connect(str(tmp_path_factory.mktemp("active") / "w.duckdb"))
    migrate(conn)
    yield conn
    conn.close()


def _land(conn: duckdb.DuckDBPyConnection, day: date, users: list[frozenset[str]], *, dau: int | None = None) -> None:
    """One organization-day of user lines (each with the given signals), all on one team."""
    for table in ("user_daily_totals", "user_team_days", "agent_activity", "breakdowns", "daily_totals"):
        conn.execute(f"DELETE FROM core.{table} WHERE day = ?", [day])
    for n, signals in enumerate(users):
        user = 1000 + n
        values = {s: (1 if s.endswith("_count") else True) for s in signals if s in SIGNALS}
        columns = ", ".join(values)
        conn.execute(
            "INSERT INTO core.user_daily_totals (scope, scope_name, day, report_kind, user_id, user_login, is_final,"
            " agent_breakdown_present,"
            f" fetched_at{', ' + columns if values else ''}) VALUES (?, ?, ?, '1-day', ?, ?, TRUE, TRUE, ?"
            f"{', ?' * len(values)})",
            [*ORG, day, user, f"u{user}", FETCHED, *values.values()],
        )
        conn.execute(
            INSERT_USER_TEAM_DAY + " (?, ?, ?, ?, ?, '1', ?, 'seven', ?)", [*ORG, day, user, f"u{user}", TEAM, FETCHED]
        )
        if "third_party_agent" in signals:
            conn.execute(
                INSERT_AGENT_ACTIVITY + " (?, ?, 'user', ?, ?, ?, 'x-1', 'X', 2, NULL, ?)",
                [*ORG, day, user, f"u{user}", FETCHED],
            )
        if "ide_entry" in signals:
            conn.execute(
                "INSERT INTO core.breakdowns (scope, scope_name, level, day, user_id, kind, ide)"
                " VALUES (?, ?, 'user', ?, ?, 'ide', 'vscode')",
                [*ORG, day, user],
            )
    if dau is not None:
        conn.execute(
            "INSERT INTO core.daily_totals (scope, scope_name, day, report_kind, daily_active_users,"
            " agent_breakdown_present, is_final, fetched_at) VALUES (?, ?, ?, '1-day', ?, TRUE, TRUE, ?)",
            [*ORG, day, dau, FETCHED],
        )
    refresh_rollups(conn, scope=ORG[0], scope_name=ORG[1], start_day=day, end_day=day)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.frozensets(st.sampled_from(sorted(set(SIGNALS) | {"third_party_agent", "ide_entry"}))),
        min_size=1,
        max_size=8,
    )
)
def test_a_member_is_active_on_any_documented_surface(
    hand: duckdb.DuckDBPyConnection, users: list[frozenset[str]]
) -> None:
    _land(hand, DAY, users)
    active = sum(1 for signals in users if signals & ACTIVE_SIGNALS)
    team = hand.execute(
        "SELECT members, active_users, third_party_agent_users FROM bi.team_usage_daily WHERE day = ?", [DAY]
    ).fetchone()
    assert team == (len(users), active, sum(1 for s in users if "third_party_agent" in s))
    classes = hand.execute(
        "SELECT user_records, any_surface_active_users, ide_users + app_only_users + cli_only_users"
        " + counts_only_users + other_surface_only_users, inactive_users FROM core.user_report_days WHERE day = ?",
        [DAY],
    ).fetchone()
    # Each line is in exactly one class; the active ones are the team rule's.
    assert classes == (len(users), active, active, len(users) - active)


def test_a_passive_code_review_alone_makes_no_one_active(hand: duckdb.DuckDBPyConnection) -> None:
    _land(hand, DAY, [frozenset({"used_assistant_code_review_passive"}), frozenset({"used_assistant_app"})])
    assert hand.execute("SELECT active_users FROM bi.team_usage_daily WHERE day = ?", [DAY]).fetchone() == (1,)


def _active_row(conn: duckdb.DuckDBPyConnection, day: date) -> dict[str, object]:
    cursor = conn.execute(
        "SELECT * FROM bi.reconciliation WHERE day = ? AND comparison = 'aggregate vs users'"
        " AND measure = 'active_users'",
        [day],
    )
    names = [d[0] for d in cursor.description]
    (row,) = cursor.fetchall()
    return dict(zip(names, row, strict=True))


IDE = frozenset({"ide_entry", "code_generation_activity_count"})


def test_cli_only_users_are_ours_not_the_service_s_and_named(hand: duckdb.DuckDBPyConnection) -> None:
    day = date(2026, 11, 3)
    _land(hand, day, [IDE, IDE, frozenset({"used_cli", "user_initiated_interaction_count"})], dau=2)
    row = _active_row(hand, day)
    assert (row["difference"], row["cli_only_users"], row["residual_difference"], row["status"]) == (
        -1,
        1,
        0,
        "explained",
    )
    assert "1 user(s) active only in the CLI" in str(row["reason"])


def test_app_only_users_before_2026_07_28_are_ours_not_the_service_s(hand: duckdb.DuckDBPyConnection) -> None:
    day = date(2026, 7, 20)
    _land(hand, day, [IDE, frozenset({"used_assistant_app", "code_generation_activity_count"})], dau=1)
    row = _active_row(hand, day)
    assert (row["app_only_users"], row["residual_difference"], row["status"]) == (1, 0, "explained")
    later = date(2026, 7, 28)
    _land(hand, later, [IDE, frozenset({"used_assistant_app", "code_generation_activity_count"})], dau=2)
    assert _active_row(hand, later)["status"] == "agrees"


def test_more_telemetry_only_users_than_silent_lines_is_unexplained(hand: duckdb.DuckDBPyConnection) -> None:
    day = date(2026, 11, 4)
    # One silent line can hide one telemetry-only user, never ten.
    _land(hand, day, [IDE, frozenset()], dau=2)
    assert (_active_row(hand, day)["status"], _active_row(hand, day)["telemetry_only_users"]) == ("explained", 1)
    _land(hand, day, [IDE, frozenset()], dau=11)
    row = _active_row(hand, day)
    assert (row["status"], row["residual_difference"]) == ("unexplained", 9)


def test_silent_lines_before_2026_06_15_explain_nothing(hand: duckdb.DuckDBPyConnection) -> None:
    day = date(2026, 6, 1)
    _land(hand, day, [IDE, frozenset()], dau=2)
    row = _active_row(hand, day)
    assert (row["telemetry_only_users"], row["status"]) == (0, "unexplained")
