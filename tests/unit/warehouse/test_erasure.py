"""Erasure and retention keep what is derived from user rows (agent and team days, the agent and
team dimensions, the rollups) equal to what the remaining rows say: refreshed for the days rows
left, they equal everything computed again from the rows that stay."""

from __future__ import annotations

import json
import random
from datetime import date, timedelta

import duckdb
import pytest

from pipelines.privacy import apply_retention
from pipelines.warehouse import migrate
from pipelines.warehouse.erasure import Person, erase_rows, refresh_derived
from pipelines.warehouse.erasure_person import find_person
from pipelines.warehouse.erasure_text import erase_from_text
from pipelines.warehouse.rollups import ROLLUPS

FIRST = date(2026, 1, 1)
DAYS = 60
SCOPES = (("organization", "acme"), ("enterprise", "big"))
DERIVED = (
    "core.agent_days",
    "core.dim_agent",
    "core.agent_names",
    "core.team_days",
    "core.dim_team",
    *(r.name for r in ROLLUPS),
)


def _land(conn: duckdb.DuckDBPyConnection, seed: int) -> None:
    """Users 1..8 on random days of both scopes, with agents and teams, then everything derived."""
    rng = random.Random(seed)
    for scope, scope_name in SCOPES:
        for offset in range(DAYS):
            day = FIRST + timedelta(days=offset)
            for user in rng.sample(range(1, 9), rng.randint(0, 6)):
                conn.execute(
                    "INSERT INTO core.user_daily_totals (scope, scope_name, day, report_kind, user_id, user_login,"
                    " user_initiated_interaction_count, code_generation_activity_count, agent_breakdown_present,"
                    " is_final) VALUES (?, ?, ?, '1-day', ?, ?, ?, 0, TRUE, TRUE)",
                    [scope, scope_name, day, user, f"dev-{user}", rng.randint(0, 3)],
                )
                for agent in rng.sample(["a-1", "b-2", "c-3"], rng.randint(0, 2)):
                    conn.execute(
                        "INSERT INTO core.agent_activity (scope, scope_name, level, day, user_id, user_login, agent_id,"
                        " agent_name, agent_job_starts, fetched_at) VALUES (?, ?, 'user', ?, ?, ?, ?, ?, ?, now())",
                        [scope, scope_name, day, user, f"dev-{user}", agent, agent.upper(), rng.randint(1, 4)],
                    )
                for team in rng.sample([10, 20], rng.randint(0, 2)):
                    conn.execute(
                        "INSERT INTO core.user_team_days (scope, scope_name, day, user_id, user_login, team_id, slug,"
                        " fetched_at, is_final) VALUES (?, ?, ?, ?, ?, ?, ?, now(), TRUE)",
                        [scope, scope_name, day, user, f"dev-{user}", team, f"team-{team}"],
                    )
    _derive_everything(conn)


def _derive_everything(conn: duckdb.DuckDBPyConnection) -> None:
    for name in DERIVED:
        conn.execute(f"DELETE FROM {name}")
    refresh_derived(
        conn,
        [(scope, scope_name, FIRST + timedelta(days=offset)) for scope, scope_name in SCOPES for offset in range(DAYS)],
    )


def _contents(conn: duckdb.DuckDBPyConnection) -> dict[str, list[tuple[object, ...]]]:
    return {name: sorted(conn.execute(f"SELECT * FROM {name}").fetchall(), key=repr) for name in DERIVED}


@pytest.fixture
def conn() -> duckdb.DuckDBPyConnection:
    connection = duckdb.connect()
    migrate(connection)
    return connection


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_after_an_erasure_the_derived_tables_equal_a_recomputation_from_the_rows_left(conn, seed):
    _land(conn, seed)
    agent_users = dict(
        conn.execute("SELECT (scope, day, agent_id), agent_users FROM core.agent_days WHERE level = 'user'").fetchall()
    )
    theirs = {
        key
        for (key,) in conn.execute(
            "SELECT DISTINCT (scope, day, agent_id) FROM core.agent_activity WHERE user_id = 3"
        ).fetchall()
    }
    assert theirs

    erased = erase_rows(conn, Person(3, "dev-3"))
    refresh_derived(conn, erased.days)

    assert conn.execute("SELECT count(*) FROM core.user_daily_totals WHERE user_id = 3").fetchone() == (0,)
    after = dict(
        conn.execute("SELECT (scope, day, agent_id), agent_users FROM core.agent_days WHERE level = 'user'").fetchall()
    )
    assert {key: after.get(key, 0) for key in theirs} == {key: agent_users[key] - 1 for key in theirs}
    assert {key: after[key] for key in agent_users if key not in theirs} == {
        key: count for key, count in agent_users.items() if key not in theirs
    }
    refreshed = _contents(conn)
    _derive_everything(conn)
    assert refreshed == _contents(conn)


@pytest.mark.parametrize("seed", [4, 5])
def test_after_retention_the_derived_tables_equal_a_recomputation_from_the_rows_left(conn, seed):
    _land(conn, seed)
    today = FIRST + timedelta(days=DAYS + 10)
    # Applied twice, as the daily run does: the days expired since the last one go.
    for keep in (40, 30):
        cutoff = today - timedelta(days=keep)
        assert conn.execute("SELECT count(*) FROM core.user_report_days WHERE day < ?", [cutoff]).fetchone() != (0,)
        apply_retention(conn, days=keep, today=today)
        for name in ("core.user_report_days", "core.team_report_days", "core.agent_reach", "core.team_days"):
            assert conn.execute(f"SELECT count(*) FROM {name} WHERE day < ?", [cutoff]).fetchone() == (0,)
        refreshed = _contents(conn)
        _derive_everything(conn)
        assert refreshed == _contents(conn)


def test_an_erasure_removes_exactly_the_persons_deliveries_and_their_login_from_kept_text(tmp_path):
    """Issue 42, breaks 2 and 3, on a DuckDB file: deliveries whose person fields name the person go;
    others sharing their id as a repository's or an issue's id stay whole; their login in other
    people's text (a delivery body, a set-aside delivery, an issue title, a quarantined line) becomes
    the placeholder, never a longer login; the partitions written again are marked for the lake."""
    conn = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    migrate(conn)
    other = {"login": "dev-00002", "id": 1000002, "type": "User"}
    erased = {"login": "dev-00018", "id": 1000043, "type": "User"}
    deliveries = {
        "push-to-1000043": ("push", {"repository": {"id": 1000043, "full_name": "acme/r"}, "sender": other}),
        "issue-1000043": (
            "issues",
            {
                "issue": {"id": 1000043, "user": other, "body": "as discussed with @dev-00018"},
                "repository": {"id": 1, "full_name": "acme/r"},
                "sender": other,
            },
        ),
        "theirs": ("issues", {"issue": {"id": 5, "user": erased}, "sender": erased}),
        "assigned": ("issues", {"issue": {"id": 6, "assignees": [other, erased]}, "sender": other}),
        "longer": ("issues", {"issue": {"id": 7, "body": "ping @dev-000180"}, "sender": other}),
    }
    conn.execute("DELETE FROM meta.lake_changes")
    for delivery_id, (event, payload) in deliveries.items():
        conn.execute(
            "INSERT INTO events.webhook_deliveries VALUES (?, ?, 'opened', 'acme/r', TIMESTAMPTZ '2026-11-20 10:00Z',"
            " ?, now())",
            [delivery_id, event, json.dumps(payload)],
        )
    conn.execute(
        "INSERT INTO events.webhook_quarantine VALUES ('q-1', 'issues', now(), 's', 0, 'r', ?, now()),"
        " ('q-2', 'push', now(), 's', 1, 'r', ?, now())",
        [
            json.dumps({"issue": {"title": "see DEV-00018's note"}, "sender": other}),
            json.dumps({"pusher": {"name": "dev-00018"}, "sender": other}),
        ],
    )
    conn.execute(
        "INSERT INTO snapshots.issues (snapshot_day, issue_id, repository_id, repository_full_name, number, title,"
        " is_pull_request, labels, user_login, user_id) VALUES"
        " (DATE '2026-11-21', 1, 1, 'acme/r', 1, 'Ask @Dev-00018 about it', FALSE, [], 'dev-00002', 1000002),"
        " (DATE '2026-11-21', 2, 1, 'acme/r', 2, 'dev-000180 owns this', FALSE, [], 'dev-00002', 1000002)"
    )

    erase_rows(conn, Person(1000043, "dev-00018"))
    erase_from_text(conn, Person(1000043, "dev-00018"))

    kept = dict(conn.execute("SELECT delivery_id, CAST(payload AS VARCHAR) FROM events.webhook_deliveries").fetchall())
    assert sorted(kept) == ["issue-1000043", "longer", "push-to-1000043"]
    assert json.loads(kept["push-to-1000043"]) == deliveries["push-to-1000043"][1]
    assert json.loads(kept["issue-1000043"])["issue"]["body"] == "as discussed with @[erased]"
    assert json.loads(kept["longer"])["issue"]["body"] == "ping @dev-000180"
    set_aside = conn.execute("SELECT delivery_id, payload_text FROM events.webhook_quarantine").fetchall()
    assert [(d, json.loads(text)["issue"]["title"]) for d, text in set_aside] == [("q-1", "see [erased]'s note")]
    titles = conn.execute("SELECT title FROM snapshots.issues ORDER BY issue_id").fetchall()
    assert titles == [("Ask @[erased] about it",), ("dev-000180 owns this",)]
    marked = set(conn.execute("SELECT table_name, day FROM meta.lake_changes").fetchall())
    assert {("events.webhook_deliveries", date(2026, 11, 20)), ("snapshots.issues", date(2026, 11, 21))} <= marked


def test_the_person_is_found_by_login_in_any_case_with_or_without_its_at_sign_or_by_id(conn):
    _land(conn, 1)
    assert find_person(conn, "@DEV-3") == find_person(conn, "dev-3") == find_person(conn, "3") == Person(3, "dev-3")
