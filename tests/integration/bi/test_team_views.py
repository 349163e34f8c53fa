"""Team and credit views (extension) on a small warehouse whose every number is known.

One organization, four days of one 28-day period and one day of the period before. Team 10
("red", renamed "crimson" on day 3) and team 20 ("blue"). User 4 moves from team 10 to team 20
on day 3; user 1 is on both teams every day. Day 5's only user row comes from a 28-day report:
a team member of that day must not be counted through it.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from pipelines.page._teams import teams_section
from pipelines.warehouse import migrate
from pipelines.warehouse.sql import run_sql
from tests.integration.bi._warehouse import INSERT_AGENT_ACTIVITY, INSERT_USER_TEAM_DAY, refresh_derived

SCOPE, NAME = "organization", "acme"
D1 = date(2026, 3, 1)
DAYS = [D1 + timedelta(days=i) for i in range(4)]  # days 1..4
D5 = D1 + timedelta(days=4)
OLD = D5 - timedelta(days=28)  # in the previous period
FETCHED = datetime(2026, 4, 1, tzinfo=UTC)


def _teams_of(user: int, day_index: int) -> list[int]:
    teams = []
    if user in (1, 2, 3) or (user == 4 and day_index < 2):
        teams.append(10)
    if user in (1, 5, 6) or (user == 4 and day_index >= 2):
        teams.append(20)
    return teams


def _interactions(user: int, day_index: int) -> int:
    return user * 10 + day_index + 1


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    path: Path = tmp_path_factory.mktemp("teams") / "w.duckdb"
    conn = duckdb.connect(str(path))
    migrate(conn)

    def user_row(day: date, user: int, kind: str, interactions: int) -> None:
        conn.execute(
            "INSERT INTO core.user_daily_totals (scope, scope_name, day, report_kind, user_id, user_login,"
            " user_initiated_interaction_count, code_generation_activity_count, agent_breakdown_present,"
            " ai_credits_used) VALUES (?, ?, ?, ?, ?, ?, ?, 0, TRUE, ?)",
            [SCOPE, NAME, day, kind, user, f"u{user}", interactions, Decimal(user) / 2],
        )

    def member(day: date, user: int, team: int, slug: str) -> None:
        conn.execute(
            INSERT_USER_TEAM_DAY + " (?, ?, ?, ?, ?, '1', ?, ?, ?)",
            [SCOPE, NAME, day, user, f"u{user}", team, slug, FETCHED],
        )

    for index, day in enumerate(DAYS):
        for user in range(1, 7):
            user_row(day, user, "1-day", _interactions(user, index))
            for team in _teams_of(user, index):
                member(day, user, team, ("red" if index < 2 else "crimson") if team == 10 else "blue")
        agents = [(4, 2)] + ([(5, 3)] if index == 3 else [])
        for user, starts in agents:
            conn.execute(
                INSERT_AGENT_ACTIVITY + " (?, ?, 'user', ?, ?, ?, 'x-1', 'Xagent', ?, NULL, ?)",
                [SCOPE, NAME, day, user, f"u{user}", starts, FETCHED],
            )
    user_row(D5, 2, "28-day", 999)
    member(D5, 2, 10, "crimson")
    user_row(OLD, 1, "1-day", 5)
    member(OLD, 1, 10, "red")
    for day in [*DAYS, D5, OLD]:
        conn.execute("CREATE OR REPLACE TEMP TABLE touched_teams (team_id BIGINT)")  # as begin_user_teams.sql leaves it
        run_sql(conn, "warehouse/refresh_team_dimensions.sql", scope=SCOPE, scope_name=NAME, start_day=day, end_day=day)
    refresh_derived(conn)
    return conn


def _rows(conn: duckdb.DuckDBPyConnection, sql: str, *params: object) -> list[tuple[object, ...]]:
    return conn.execute(sql, list(params)).fetchall()


def test_activity_goes_to_the_team_the_user_was_on_that_day(conn: duckdb.DuckDBPyConnection) -> None:
    rows = _rows(
        conn,
        "SELECT day, team_id, members, reported_users, user_initiated_interaction_count, third_party_agent_users"
        " FROM bi.team_usage_daily WHERE day IN (?, ?) ORDER BY day, team_id",
        DAYS[0],
        DAYS[2],
    )
    assert rows == [
        (DAYS[0], 10, 4, 4, sum(_interactions(u, 0) for u in (1, 2, 3, 4)), 1),  # the mover, before
        (DAYS[0], 20, 3, 3, sum(_interactions(u, 0) for u in (1, 5, 6)), 0),
        (DAYS[2], 10, 3, 3, sum(_interactions(u, 2) for u in (1, 2, 3)), 0),
        (DAYS[2], 20, 4, 4, sum(_interactions(u, 2) for u in (1, 4, 5, 6)), 1),  # and after
    ]


def test_a_user_on_two_teams_counts_in_each_so_teams_do_not_add_up(conn: duckdb.DuckDBPyConnection) -> None:
    (members,) = _rows(conn, "SELECT sum(reported_users) FROM bi.team_usage_daily WHERE day = ?", DAYS[0])[0]
    assert members == 7  # six users, user 1 on both teams


def test_a_team_is_shown_with_its_latest_slug_and_the_slug_of_the_day(conn: duckdb.DuckDBPyConnection) -> None:
    sql = "SELECT DISTINCT team_slug, slug_that_day FROM bi.team_usage_daily WHERE team_id = 10 ORDER BY 2"
    rows = _rows(conn, sql)
    assert rows == [("crimson", "crimson"), ("crimson", "red")]


def test_a_28_day_user_row_is_never_joined_to_a_membership(conn: duckdb.DuckDBPyConnection) -> None:
    assert _rows(
        conn,
        "SELECT members, reported_users, user_initiated_interaction_count FROM bi.team_usage_daily WHERE day = ?",
        D5,
    ) == [(1, 0, 0)]


def test_period_users_are_distinct_over_the_period_with_each_days_team(conn: duckdb.DuckDBPyConnection) -> None:
    rows = _rows(
        conn,
        "SELECT team_id, members, active_users, third_party_agent_users, previous_active_users, change"
        " FROM bi.team_usage_periods WHERE period_index = 0 ORDER BY team_id",
    )
    # 5 days against 1: distinct users of periods that short are no change, whatever the counts say.
    assert rows == [
        (10, 4, 4, 1, 1, None),  # user 4's agent days were with team 10 first; day 5's user 2: a member only
        (20, 4, 4, 2, 0, None),
    ]
    assert _rows(
        conn,
        "SELECT DISTINCT compared_days, previous_compared_days, comparable FROM bi.team_usage_periods"
        " WHERE period_index = 0",
    ) == [(5, 1, False)]
    assert _rows(conn, "SELECT team_id, change FROM bi.team_usage_periods WHERE period_index = 1") == [(10, None)]


def test_credits_per_user_name_the_teams_of_the_day(conn: duckdb.DuckDBPyConnection) -> None:
    rows = _rows(
        conn,
        "SELECT user_id, ai_credits_used, team_ids, team_slugs FROM bi.ai_credits_daily"
        " WHERE day = ? AND user_id IN (1, 4) ORDER BY user_id",
        DAYS[2],
    )
    assert rows == [(1, Decimal("0.5"), [10, 20], ["crimson", "blue"]), (4, Decimal("2"), [20], ["blue"])]
    (team_credits,) = _rows(
        conn, "SELECT ai_credits_used FROM bi.team_usage_daily WHERE day = ? AND team_id = 20", DAYS[2]
    )[0]
    assert team_credits == Decimal("0.5") + 2 + Decimal("2.5") + 3


def test_team_agent_usage_is_per_agent_and_team(conn: duckdb.DuckDBPyConnection) -> None:
    rows = _rows(
        conn,
        "SELECT day, team_slug, agent_name, agent_users, agent_job_starts FROM bi.team_agent_usage_daily"
        " ORDER BY day, team_id",
    )
    assert rows == [
        (DAYS[0], "crimson", "Xagent", 1, 2),
        (DAYS[1], "crimson", "Xagent", 1, 2),
        (DAYS[2], "blue", "Xagent", 1, 2),
        (DAYS[3], "blue", "Xagent", 2, 5),
    ]


def test_the_page_says_team_active_users_are_ours_from_user_lines_on_any_surface(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    section = teams_section(conn, scope=SCOPE, scope_name=NAME)
    assert "counted from user lines, as the service gives no team figure" in section
    assert "Third-party agent users" in section
