"""refresh_chargeback, what each publish runs first: it computes billing.team_chargeback again for
the days a writer marked changed in a table a day's chargeback reads, for every day when what
every day reads (the basis) changed or the publish writes everything, and for no day otherwise;
the days it wrote are marked for the lake."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from itertools import pairwise

import duckdb
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipelines._paths import SQL_DIR
from pipelines.warehouse import migrate
from pipelines.warehouse.chargeback import _SPAN_DAYS, _SPAN_GAP, DAY_INPUTS, WHOLE_INPUTS, _spans, refresh_chargeback
from pipelines.warehouse.rollups import rebuild_rollups
from pipelines.warehouse.sql import run_sql

DAY = date(2026, 11, 10)
FETCHED = datetime(2026, 11, 12, tzinfo=UTC)
TABLE = "billing.team_chargeback"


@pytest.fixture
def conn() -> Iterator[duckdb.DuckDBPyConnection]:
    """An organization billed $10 on two days, split between two users' teams by their credits."""
    conn = duckdb.connect()
    migrate(conn)
    for day in (DAY, DAY + timedelta(days=1)):
        conn.execute(
            "INSERT INTO billing.credit_usage (scope, scope_name, day, meter, product, sku, model, net_amount,"
            " month_closed, fetched_at) VALUES ('organization', 'acme', ?, 'ai_credit', 'assistant',"
            " 'assistant_ai_credit', 'GPT-5.2', 10, FALSE, ?)",
            [day, FETCHED],
        )
        for user_id, credits in ((1, 1), (2, 3)):
            conn.execute(
                "INSERT INTO core.user_daily_totals (scope, scope_name, day, report_kind, user_id, user_login,"
                " agent_breakdown_present, ai_credits_used, is_final) VALUES ('organization', 'acme', ?, '1-day', ?,"
                " ?, TRUE, ?, TRUE)",
                [day, user_id, f"dev-{user_id}", credits],
            )
            conn.execute(
                "INSERT INTO core.user_team_days (scope, scope_name, day, user_id, user_login, entity_id, team_id,"
                " slug, fetched_at) VALUES ('organization', 'acme', ?, ?, ?, '1', ?, ?, ?)",
                [day, user_id, f"dev-{user_id}", user_id, f"team-{user_id}", FETCHED],
            )
    conn.execute("CREATE TEMP TABLE touched_teams (team_id BIGINT)")  # as begin_user_teams.sql leaves it
    days = {"scope": "organization", "scope_name": "acme", "start_day": DAY, "end_day": DAY + timedelta(days=1)}
    run_sql(conn, "warehouse/refresh_team_dimensions.sql", **days)
    rebuild_rollups(conn)
    refresh_chargeback(conn, full=True)
    conn.execute("DELETE FROM meta.lake_changes")  # published
    yield conn
    conn.close()


def kept(conn: duckdb.DuckDBPyConnection) -> dict[tuple[date, int], Decimal]:
    rows = conn.execute(f"SELECT day, team_id, net_amount FROM {TABLE} WHERE team_id IS NOT NULL").fetchall()
    return {(day, team_id): net for day, team_id, net in rows}


def marked(conn: duckdb.DuckDBPyConnection) -> set[date]:
    return {
        day for (day,) in conn.execute("SELECT day FROM meta.lake_changes WHERE table_name = ?", [TABLE]).fetchall()
    }


def _credits_move_to_team_2(conn: duckdb.DuckDBPyConnection) -> None:
    """dev-1 reports nothing on both days, written as no landing writes: unmarked."""
    conn.execute("UPDATE core.user_daily_totals SET ai_credits_used = 0 WHERE user_id = 1")
    rebuild_rollups(conn)
    conn.execute("DELETE FROM meta.lake_changes")


def test_only_the_days_marked_changed_are_computed_again_and_marked_for_the_lake(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    second = DAY + timedelta(days=1)
    assert kept(conn) == {(d, t): Decimal(n) for d in (DAY, second) for t, n in ((1, "2.5"), (2, "7.5"))}
    _credits_move_to_team_2(conn)
    run_sql(conn, "warehouse/mark_lake_changes.sql", tables=["core.credit_team_sets"], start_day=second, end_day=second)
    refresh_chargeback(conn, full=False)
    assert kept(conn) == {(DAY, 1): Decimal("2.5"), (DAY, 2): Decimal("7.5"), (second, 2): Decimal("10")}
    assert marked(conn) == {second}


def test_nothing_marked_and_the_same_basis_computes_and_marks_nothing(conn: duckdb.DuckDBPyConnection) -> None:
    _credits_move_to_team_2(conn)
    refresh_chargeback(conn, full=False)
    assert kept(conn)[(DAY, 1)] == Decimal("2.5")
    assert marked(conn) == set()


@pytest.mark.parametrize(
    "change",
    [
        "UPDATE meta.view_definitions SET checksum = 'another'",  # the views were created again
        "INSERT INTO meta.lake_changes VALUES ('*', NULL)",  # a migration: every table written again
    ],
)
def test_another_basis_or_a_rewrite_of_every_table_computes_every_day(
    conn: duckdb.DuckDBPyConnection, change: str
) -> None:
    _credits_move_to_team_2(conn)
    conn.execute(change)
    refresh_chargeback(conn, full=False)
    assert kept(conn) == {(DAY, 2): Decimal("10"), (DAY + timedelta(days=1), 2): Decimal("10")}
    assert marked(conn) == {DAY, DAY + timedelta(days=1)}


def test_a_full_publish_computes_every_day(conn: duckdb.DuckDBPyConnection) -> None:
    _credits_move_to_team_2(conn)
    refresh_chargeback(conn, full=True)
    assert set(kept(conn).values()) == {Decimal("10")}


@given(st.sets(st.integers(min_value=0, max_value=120), max_size=60))
def test_changed_days_are_computed_in_short_spans_that_hold_each_once_and_join_only_close_days(
    offsets: set[int],
) -> None:
    days = {DAY + timedelta(days=n) for n in offsets}
    spans = _spans(days)
    assert all(start in days and end in days and (end - start).days < _SPAN_DAYS for start, end in spans)
    assert all(sum(start <= d <= end for start, end in spans) == 1 for d in days)
    for earlier, later in pairwise(spans):  # apart, or the earlier would have grown past _SPAN_DAYS
        assert later[0] - earlier[1] > timedelta(days=_SPAN_GAP) or (later[0] - earlier[0]).days >= _SPAN_DAYS
    for start, end in spans:  # within a span, no gap wider than _SPAN_GAP between changed days
        inside = sorted(d for d in days if start <= d <= end)
        assert all(b - a <= timedelta(days=_SPAN_GAP) for a, b in pairwise(inside))


def test_what_a_day_reads_of_each_day_and_whole_is_the_definitions_and_the_basis_holds_every_whole_read() -> None:
    # A table the chargeback read whole that the basis did not hold would leave days stale.
    assert set(DAY_INPUTS) == {
        "billing.credit_usage",
        "billing.cost_center_usage",
        "core.team_days",
        "core.user_team_days",
        "core.user_daily_totals",
        "core.credit_team_sets",
        "core.user_report_days",
    }
    basis = (SQL_DIR / "billing" / "select_chargeback_basis.sql").read_text()
    assert set(WHOLE_INPUTS) == {"billing.cost_centers", "billing.cost_center_resources", "core.dim_team"}
    assert [name for name in WHOLE_INPUTS if f"FROM {name} " not in basis] == []
