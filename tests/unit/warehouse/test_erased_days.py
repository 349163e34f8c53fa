"""core.erased_user_days on a real DuckDB file: an erasure counts the people it removed from each
day's user-level records (rows, or lines refused at ingest), never twice however often the day
is fetched again and dropped on ingest, and bi.reconciliation explains the difference the
aggregate report, which still counts them, leaves there."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.defs.usage.checks import RUN_CHECKS
from pipelines.privacy import apply_retention
from pipelines.warehouse import migrate
from pipelines.warehouse.checks import run_checks
from pipelines.warehouse.erasure import Person, erase_rows, record_erased_days, refresh_derived

DAY = date(2026, 3, 2)
ORG = ("organization", "acme")
RECONCILIATION = next(c for c in RUN_CHECKS if c.name == "reconciliation_holds")


def _reason(people: int) -> str:
    return (
        f"{people} person(s) erased from this day's user rows (metrics-etl forget): "
        "the aggregate report still counts them"
    )


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[duckdb.DuckDBPyConnection]:
    conn = duckdb.connect(str(tmp_path_factory.mktemp("erased") / "warehouse.duckdb"))
    migrate(conn)
    yield conn
    conn.close()


@pytest.fixture
def conn(warehouse: duckdb.DuckDBPyConnection) -> duckdb.DuckDBPyConnection:
    for name in ("core.user_daily_totals", "core.daily_totals", "raw.quarantine", "core.erased_user_days"):
        warehouse.execute(f"DELETE FROM {name}")
    return warehouse


def _user(conn: duckdb.DuckDBPyConnection, user: int, interactions: int, day: date = DAY) -> None:
    conn.execute(
        "INSERT INTO core.user_daily_totals (scope, scope_name, day, report_kind, user_id, user_login,"
        " user_initiated_interaction_count, code_generation_activity_count, agent_breakdown_present, fetched_at,"
        " is_final) VALUES (?, ?, ?, '1-day', ?, ?, ?, 0, FALSE, now(), TRUE)",
        [*ORG, day, user, f"dev-{user}", interactions],
    )


def _aggregate(conn: duckdb.DuckDBPyConnection, interactions: int, active: int, day: date = DAY) -> None:
    conn.execute(
        "INSERT INTO core.daily_totals (scope, scope_name, day, report_kind, user_initiated_interaction_count,"
        " code_generation_activity_count, daily_active_users, agent_breakdown_present, fetched_at, is_final)"
        " VALUES (?, ?, ?, '1-day', ?, 0, ?, FALSE, now(), TRUE)",
        [*ORG, day, interactions, active],
    )


def _forget(conn: duckdb.DuckDBPyConnection, user: int) -> None:
    """What `metrics-etl forget` does in the warehouse's transaction, as pipelines/privacy/forget.py."""
    conn.execute("BEGIN TRANSACTION")
    erased = erase_rows(conn, Person(user, f"dev-{user}"))
    record_erased_days(conn, [erased], on_ingest=False)
    refresh_derived(conn, erased.days)
    conn.execute("COMMIT")


def _refetch(conn: duckdb.DuckDBPyConnection, users: list[int], forgotten: set[int]) -> None:
    """The day landed again with every user the service reports, the erased ones dropped on ingest
    as pipelines/ingest/forgotten.py does."""
    conn.execute("DELETE FROM core.user_daily_totals WHERE day = ?", [DAY])
    for user in users:
        _user(conn, user, 10)
    erased = [erase_rows(conn, Person(user, f"dev-{user}"), first_day=DAY, last_day=DAY) for user in sorted(forgotten)]
    record_erased_days(conn, erased, on_ingest=True)


def _counted(conn: duckdb.DuckDBPyConnection) -> dict[tuple[str, str, date], int]:
    rows = conn.execute("SELECT scope, scope_name, day, people_erased FROM core.erased_user_days").fetchall()
    return {(scope, name, day): people for scope, name, day, people in rows}


def _reconciliation(conn: duckdb.DuckDBPyConnection, measure: str) -> tuple[int, str, str | None]:
    row = conn.execute(
        "SELECT difference, status, reason FROM bi.reconciliation WHERE comparison = 'aggregate vs users'"
        " AND scope = ? AND day = ? AND measure = ?",
        [ORG[0], DAY, measure],
    ).fetchone()
    assert row is not None
    return row


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.one_of(st.integers(1, 4), st.just("refetch")), max_size=8))
def test_each_erased_person_is_counted_once_on_their_day_however_often_it_is_fetched_again(conn, steps):
    for name in ("core.user_daily_totals", "core.erased_user_days"):
        conn.execute(f"DELETE FROM {name}")
    users = [1, 2, 3, 4]
    for user in users:
        _user(conn, user, 10)
    forgotten: set[int] = set()
    for step in steps:
        if step == "refetch":
            _refetch(conn, users, forgotten)
        else:
            _forget(conn, step)  # forgetting someone twice finds nobody the second time
            forgotten.add(step)
    assert _counted(conn) == ({(*ORG, DAY): len(forgotten)} if forgotten else {})


def test_a_final_day_short_of_an_erased_person_is_explained_by_the_erasure_and_raises_no_warning(conn):
    _aggregate(conn, 100, 2)
    _user(conn, 1, 60)
    _user(conn, 2, 40)
    _forget(conn, 2)
    assert _reconciliation(conn, "user_initiated_interaction_count") == (40, "explained", _reason(1))
    assert _reconciliation(conn, "active_users") == (1, "explained", _reason(1))
    (outcome,) = run_checks(conn, [RECONCILIATION], start_day=DAY, end_day=DAY)
    assert outcome.failures == 0, outcome.detail


def test_a_difference_the_erased_person_cannot_explain_is_still_unexplained(conn):
    # More users rows than the aggregate counts: erasing someone never explains a negative difference.
    _aggregate(conn, 50, 1)
    _user(conn, 1, 60)
    _user(conn, 2, 40)
    _forget(conn, 2)
    assert _reconciliation(conn, "user_initiated_interaction_count")[1] == "unexplained"


def test_a_person_every_line_of_whom_was_refused_is_counted_once_their_lines_are_erased(conn):
    """Their refused line explained the day's difference; the erasure removes it, and says so instead."""
    _aggregate(conn, 100, 2)
    _user(conn, 1, 60)
    for number, text in enumerate([f'{{"day": "{DAY}", "user_id": 2, "user_login": "dev-2", "user_initiated', "x"]):
        conn.execute(
            "INSERT INTO raw.quarantine (scope, scope_name, report_kind, level, report_start_day, report_end_day,"
            " file_index, archive_path, link, line_number, reason, line_text, fetched_at)"
            " VALUES (?, ?, '1-day', 'user', ?, ?, 0, 'a', 'l', ?, 'malformed JSON', ?, now())",
            [*ORG, DAY, DAY, number, text.replace("x", '{"user_id": 2, "user_login": "dev-2"}')],
        )
    assert _reconciliation(conn, "user_initiated_interaction_count")[2].startswith("2 user-level line(s)")
    _forget(conn, 2)
    assert _counted(conn) == {(*ORG, DAY): 1}
    assert _reconciliation(conn, "user_initiated_interaction_count") == (40, "explained", _reason(1))


def test_retention_counts_no_erased_person(conn):
    # Retention removes whole days: nothing is left to compare on them.
    _aggregate(conn, 100, 2)
    _user(conn, 1, 60)
    _user(conn, 2, 40)
    apply_retention(conn, days=1, today=date(2026, 6, 1))
    assert conn.execute("SELECT count(*) FROM core.user_daily_totals").fetchone() == (0,)
    assert _counted(conn) == {}
