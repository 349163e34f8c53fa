"""The rollups: refreshed day by day as landings do, they equal a rebuild from all the facts, and
a period's distinct users, summed from the reach tables or read from the team windows, equal a
count over the user rows, and a team window's sums equal its team-days'."""

from __future__ import annotations

from datetime import date, timedelta

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipelines.warehouse import migrate
from pipelines.warehouse.rollups import ROLLUPS, _bytes, end_of_landing_memory, rebuild_rollups, refresh_rollups

FIRST = date(2026, 1, 1)
DAYS = 70
USERS = 6

# Per (day offset, user): the agents the user ran that day, and the teams the user was on.
activity = st.dictionaries(
    st.tuples(st.integers(0, DAYS - 1), st.integers(1, USERS)),
    st.tuples(
        st.sets(st.sampled_from(["a-1", "b-2"]), max_size=2),
        st.sets(st.sampled_from([10, 20]), max_size=2),
        st.integers(0, 3),
    ),
    max_size=120,
)


def _insert(
    conn: duckdb.DuckDBPyConnection, rows: dict[tuple[int, int], tuple[set[str], set[int], int]], days: range
) -> None:
    for (offset, user), (agents, teams, interactions) in rows.items():
        if offset not in days:
            continue
        day = FIRST + timedelta(days=offset)
        conn.execute(
            "INSERT INTO core.user_daily_totals (scope, scope_name, day, report_kind, user_id, user_login,"
            " user_initiated_interaction_count, code_generation_activity_count, agent_breakdown_present, is_final)"
            " VALUES ('organization', 'acme', ?, '1-day', ?, 'u', ?, 0, TRUE, TRUE)",
            [day, user, interactions],
        )
        for agent in agents:
            conn.execute(
                "INSERT INTO core.agent_activity (scope, scope_name, level, day, user_id, agent_id, agent_name,"
                " agent_job_starts, fetched_at) VALUES ('organization', 'acme', 'user', ?, ?, ?, ?, 1, now())",
                [day, user, agent, agent],
            )
        for team in teams:
            conn.execute(
                "INSERT INTO core.user_team_days (scope, scope_name, day, user_id, team_id, slug, fetched_at, is_final)"
                " VALUES ('organization', 'acme', ?, ?, ?, 't', now(), TRUE)",
                [day, user, team],
            )


def _contents(conn: duckdb.DuckDBPyConnection) -> dict[str, list[tuple[object, ...]]]:
    return {r.name: sorted(conn.execute(f"SELECT * FROM {r.name}").fetchall(), key=repr) for r in ROLLUPS}


@pytest.fixture(scope="module")
def warehouse() -> duckdb.DuckDBPyConnection:
    conn = duckdb.connect()
    migrate(conn)
    return conn


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=activity, chunk=st.integers(1, 30), order=st.randoms(use_true_random=False))
def test_rollups_refreshed_day_by_day_equal_a_rebuild(
    warehouse: duckdb.DuckDBPyConnection,
    rows: dict[tuple[int, int], tuple[set[str], set[int], int]],
    chunk: int,
    order: object,
) -> None:
    conn = warehouse
    conn.execute("BEGIN TRANSACTION")
    for table in ("core.user_daily_totals", "core.agent_activity", "core.user_team_days", *(r.name for r in ROLLUPS)):
        conn.execute(f"DELETE FROM {table}")
    # Landings of day ranges in any order, each refreshing its own days, as land_report does.
    chunks = [range(start, min(start + chunk, DAYS)) for start in range(0, DAYS, chunk)]
    order.shuffle(chunks)  # type: ignore[attr-defined]
    for days in chunks:
        _insert(conn, rows, days)
        refresh_rollups(
            conn,
            scope="organization",
            scope_name="acme",
            start_day=FIRST + timedelta(days=days[0]),
            end_day=FIRST + timedelta(days=days[-1]),
        )
    refreshed = _contents(conn)
    conn.execute("COMMIT")
    rebuild_rollups(conn)
    assert _contents(conn) == refreshed


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=activity, start=st.integers(0, DAYS - 28))
def test_a_periods_distinct_users_summed_from_the_reach_equal_a_count_of_the_user_rows(
    warehouse: duckdb.DuckDBPyConnection,
    rows: dict[tuple[int, int], tuple[set[str], set[int], int]],
    start: int,
) -> None:
    conn = warehouse
    for table in ("core.user_daily_totals", "core.agent_activity", "core.user_team_days"):
        conn.execute(f"DELETE FROM {table}")
    _insert(conn, rows, range(DAYS))
    rebuild_rollups(conn)
    first, last = FIRST + timedelta(days=start), FIRST + timedelta(days=start + 27)
    reach = conn.execute(
        "SELECT agent_id, sum(users_since[day - CAST($first AS DATE) + 1]) FROM core.agent_reach"
        " WHERE day BETWEEN $first AND $last GROUP BY ALL ORDER BY ALL",
        {"first": first, "last": last},
    ).fetchall()
    counted = conn.execute(
        "SELECT agent_id, count(DISTINCT user_id) FROM core.agent_activity WHERE day BETWEEN $first AND $last"
        " GROUP BY ALL ORDER BY ALL",
        {"first": first, "last": last},
    ).fetchall()
    assert reach == counted
    team_reach = conn.execute(
        "SELECT team_id, counted, sum(users_since[day - CAST($first AS DATE) + 1]) FROM core.team_reach"
        " WHERE day BETWEEN $first AND $last GROUP BY ALL ORDER BY ALL",
        {"first": first, "last": last},
    ).fetchall()
    members = conn.execute(
        "SELECT team_id, 'member', count(DISTINCT user_id) FROM core.user_team_days"
        " WHERE day BETWEEN $first AND $last GROUP BY ALL ORDER BY ALL",
        {"first": first, "last": last},
    ).fetchall()
    assert [r for r in team_reach if r[1] == "member"] == members
    window = conn.execute(
        "SELECT team_id, 'member', members FROM core.team_window_users WHERE day = $last AND members > 0 ORDER BY ALL",
        {"last": last},
    ).fetchall()
    assert window == members
    # The window's sums are its team-days' sums: a period of bi.team_usage_periods is one row.
    by_days = conn.execute(
        "SELECT team_id, count(*), sum(user_initiated_interaction_count),"
        " sum(active_users) FILTER (WHERE membership_final),"
        " sum(active_users * active_users) FILTER (WHERE membership_final)"
        " FROM core.team_report_days WHERE day BETWEEN $first AND $last GROUP BY ALL ORDER BY ALL",
        {"first": first, "last": last},
    ).fetchall()
    windowed = conn.execute(
        "SELECT team_id, listed_days, user_initiated_interaction_count, active_user_days, active_user_days_squares"
        " FROM core.team_window_users WHERE day = $last AND listed_days > 0 ORDER BY ALL",
        {"last": last},
    ).fetchall()
    assert windowed == by_days
    compared = conn.execute(
        "SELECT count(DISTINCT day) FILTER (WHERE membership_final) FROM core.team_report_days"
        " WHERE day BETWEEN $first AND $last",
        {"first": first, "last": last},
    ).fetchall()
    in_windows = conn.execute(
        "SELECT DISTINCT compared_days FROM core.team_window_users WHERE day = $last AND listed_days > 0",
        {"last": last},
    ).fetchall()
    assert in_windows in ([], compared)


@pytest.mark.parametrize("order", [("organization", "enterprise"), ("enterprise", "organization")])
def test_an_organizations_enterprise_is_found_whichever_lands_first(
    warehouse: duckdb.DuckDBPyConnection,
    order: tuple[str, str],
) -> None:
    conn = warehouse
    conn.execute("BEGIN TRANSACTION")
    for table in ("core.user_daily_totals", *(r.name for r in ROLLUPS)):
        conn.execute(f"DELETE FROM {table}")
    names = {"organization": "acme", "enterprise": "big"}
    users = {"organization": [1, 2], "enterprise": [2, 3]}
    for scope in order:
        for user in users[scope]:
            conn.execute(
                "INSERT INTO core.user_daily_totals (scope, scope_name, day, report_kind, user_id, user_login,"
                " agent_breakdown_present, is_final) VALUES (?, ?, ?, '1-day', ?, 'u', TRUE, TRUE)",
                [scope, names[scope], FIRST, user],
            )
        refresh_rollups(conn, scope=scope, scope_name=names[scope], start_day=FIRST, end_day=FIRST)
    pairs = "SELECT scope_name, day, enterprise, shared_users FROM core.organization_enterprise_days"
    assert conn.execute(pairs).fetchall() == [("acme", FIRST, "big", 1)]
    # The day fetched again without the shared user: the pair is gone, whichever side lands.
    conn.execute("DELETE FROM core.user_daily_totals WHERE scope = 'enterprise' AND user_id = 2")
    refresh_rollups(conn, scope="enterprise", scope_name="big", start_day=FIRST, end_day=FIRST)
    assert conn.execute(pairs).fetchall() == []
    conn.execute("ROLLBACK")


@pytest.mark.parametrize("limit", ["64MB", "1GB", "100KB", "-1"])
def test_the_end_of_a_landing_has_at_least_256_mb_and_gives_the_limit_back(limit: str) -> None:
    conn = duckdb.connect()
    conn.execute(f"SET memory_limit = '{limit}'")
    ((before,),) = conn.execute("SELECT current_setting('memory_limit')").fetchall()
    with end_of_landing_memory(conn):
        ((during,),) = conn.execute("SELECT current_setting('memory_limit')").fetchall()
    ((after,),) = conn.execute("SELECT current_setting('memory_limit')").fetchall()
    assert during == ("244.1 MiB" if limit in ("64MB", "100KB") else before)
    # Given back as DuckDB shows it, to its one decimal: '97.6 KiB' may come back as '97.5 KiB'.
    assert _bytes(after) == pytest.approx(_bytes(before), rel=1e-2)
