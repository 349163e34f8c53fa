"""Every example query in sql/queries/ runs on the hand-built warehouse and answers its question."""

from pathlib import Path

import duckdb
import pytest

from pipelines._paths import SQL_DIR
from tests.integration.bi._warehouse import NAMES, build_warehouse

_QUERIES = sorted((SQL_DIR / "queries").glob("*.sql"))


@pytest.fixture(scope="module")
def conn(tmp_path_factory):
    path = tmp_path_factory.mktemp("bi-queries") / "warehouse.duckdb"
    build_warehouse(path)
    with duckdb.connect(str(path), read_only=True) as connection:
        yield connection


def _run(conn, path: Path) -> list[dict]:
    cursor = conn.execute(path.read_text())
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


@pytest.mark.parametrize("path", _QUERIES, ids=lambda p: p.stem)
def test_example_query_runs_and_returns_rows(conn, path):
    assert _run(conn, path)


def test_agents_in_use_are_the_ones_active_in_the_last_28_days(conn):
    rows = _run(conn, SQL_DIR / "queries" / "select_agents_in_use.sql")
    assert [r["agent_name"] for r in rows] == ["Alpha", "Charlie", "Delta"]


def test_changes_between_periods_name_each_agent_s_direction(conn):
    rows = _run(conn, SQL_DIR / "queries" / "select_agent_changes_between_periods.sql")
    assert {r["agent_id"]: r["change"] for r in rows} == {"a-1": "grown", "b-2": "gone", "c-3": "new", "d-4": "shrunk"}


def test_renamed_agents_show_every_label_beside_the_latest(conn):
    rows = _run(conn, SQL_DIR / "queries" / "select_renamed_agents.sql")
    assert [(r["agent_id"], r["latest_name"], r["label"]) for r in rows] == [
        ("a-1", NAMES["a-1"], "Alpha (beta)"),
        ("a-1", NAMES["a-1"], "Alpha"),
    ]


def test_weekly_shares_add_up_to_one_per_week(conn):
    rows = _run(conn, SQL_DIR / "queries" / "select_weekly_agent_share.sql")
    weeks: dict = {}
    for r in rows:
        weeks[r["week"]] = weeks.get(r["week"], 0) + r["share"]
    assert all(abs(total - 1) < 0.01 for total in weeks.values())


def test_team_agent_adoption_counts_members_distinct_over_the_window(conn):
    rows = _run(conn, SQL_DIR / "queries" / "select_team_agent_adoption.sql")
    by_team = {(r["team_slug"], r["agent_id"]): (r["agent_users"], r["members"]) for r in rows}
    # In the last 28 days every user uses Alpha on some day: all members of each team.
    assert by_team[("platform", "a-1")] == (3, 3)
    assert by_team[("web", "a-1")] == (4, 4)  # user 101 counts for both teams
    assert all(0 < r["share_of_members"] <= 1 for r in rows)


def test_seats_unused_30_days_are_the_seats_held_a_month_without_activity_longest_first(conn):
    rows = _run(conn, SQL_DIR / "queries" / "select_seats_unused_30_days.sql")
    # dev-105 was assigned 5 days ago and never used: not 30 days yet.
    assert [(r["login"], r["days_inactive"], r["never_active"], r["assigned_through"]) for r in rows] == [
        ("dev-104", 100, True, "(direct)"),
        ("dev-103", 45, False, "(direct)"),
        ("dev-106", 31, False, "platform"),
    ]
