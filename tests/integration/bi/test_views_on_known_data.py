"""The bi.* views on a hand-built warehouse whose numbers are known, and shaped to tempt bad sums."""

import re
from collections import defaultdict
from datetime import timedelta

import duckdb
import pytest

from pipelines.warehouse import migrate
from tests.integration.bi._warehouse import (
    DAYS,
    FETCHED,
    INSERT_AGENT_ACTIVITY,
    LAST_DAY,
    NAMES,
    USERS,
    build_warehouse,
    refresh_agent_dimensions,
    refresh_derived,
)

VIEWS = (
    "agent_usage_daily",
    "agent_usage_periods",
    "report_coverage",
    "assistant_activity_daily",
    "repository_activity",
    "team_usage_daily",
    "team_agent_usage_daily",
    "team_usage_periods",
    "ai_credits_daily",
    "seat_utilization",
    "inactive_seats",
    "report_drift",
    "reconciliation",
    "field_drift",
    "agent_surfaces_daily",
    "cli_customizations_daily",
    "adoption_phases",
    "adoption_phase_labels",
    "repository_outcomes_daily",
    "service_incident_days",
    "cost_daily",
    "cost_by_cost_center",
    "chargeback_by_team",
    "cost_per_active_user",
    "budget_burn",
    "credit_reconciliation",
    "billing_model_drift",
    "assistant_identities",
    "assistant_usage_daily",
    "assistant_unmapped_people",
    "assistant_cost_daily",
)


@pytest.fixture(scope="module")
def known(tmp_path_factory):
    path = tmp_path_factory.mktemp("bi") / "warehouse.duckdb"
    expected = build_warehouse(path)
    conn = duckdb.connect(str(path), read_only=True)
    yield conn, expected
    conn.close()


def _rows(conn, sql, *params):
    cursor = conn.execute(sql, list(params))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def test_every_view_exists_in_schema_bi_with_a_description(known):
    conn, _ = known
    rows = conn.execute("SELECT view_name, comment FROM duckdb_views() WHERE schema_name = 'bi'").fetchall()
    assert {name for name, _ in rows} == set(VIEWS)
    assert all(comment and "row" in comment for _, comment in rows)


def test_no_view_column_holds_a_sum_of_the_two_interaction_measures(known):
    conn, expected = known
    tempting = expected.tempting_sums()
    for view in VIEWS:
        for row in _rows(conn, f"SELECT * FROM bi.{view}"):
            hits = {k: v for k, v in row.items() if isinstance(v, int) and not isinstance(v, bool) and v in tempting}
            assert not hits, f"bi.{view} shows a summed measure: {hits}"


def test_no_view_has_a_user_level_session_column(known):
    conn, _ = known
    columns = conn.execute("SELECT table_name, column_name FROM duckdb_columns() WHERE schema_name = 'bi'").fetchall()
    sessions = [(t, c) for t, c in columns if "session" in c]
    assert sessions, "the aggregate session measure should be there"
    assert not [(t, c) for t, c in sessions if re.search("user", c)]
    # bi.assistant_usage_daily's sessions are Claude Code's own (a vendor counts them per user),
    # NULL on every row of the service's: the service's user-level sessions are still nowhere.
    assert {c for t, c in sessions if t != "assistant_usage_daily"} == {"agent_sessions"}
    assert conn.execute(
        "SELECT count(*) FROM bi.assistant_usage_daily WHERE sessions IS NOT NULL AND source_kind <> 'vendor'"
    ).fetchone() == (0,)


def test_agent_interaction_columns_never_share_a_view_with_the_top_level_count(known):
    conn, _ = known
    by_view = defaultdict(set)
    for table, column in conn.execute(
        "SELECT table_name, column_name FROM duckdb_columns() WHERE schema_name = 'bi'"
    ).fetchall():
        by_view[table].add(column)
    for view, columns in by_view.items():
        assert not ({"agent_job_starts", "user_initiated_interaction_count"} <= columns), view


def test_daily_agent_usage_has_job_starts_sessions_and_users_per_agent(known):
    conn, expected = known
    rows = _rows(conn, "SELECT * FROM bi.agent_usage_daily")
    got = {(r["day"], r["agent_id"]): (r["agent_job_starts"], r["agent_sessions"], r["agent_users"]) for r in rows}
    want = {
        key: (starts, expected.sessions[key], len(expected.users.get(key, ())))
        for key, starts in expected.job_starts.items()
    }
    assert got == want
    assert {r["agent_id"]: r["agent_name"] for r in rows} == NAMES  # the latest label, also for old days


def test_gap_days_are_absent_or_null_never_zero(known):
    conn, expected = known
    daily = _rows(conn, "SELECT * FROM bi.agent_usage_daily WHERE day IN (SELECT unnest(?))", sorted(expected.gap_days))
    assert daily == []
    coverage = {r["day"]: r for r in _rows(conn, "SELECT * FROM bi.report_coverage")}
    assert len(coverage) == DAYS
    for day, row in coverage.items():
        if day in expected.gap_days:
            assert (row["status"], row["aggregate_agent_array"], row["agent_job_starts"]) == (
                "no agent array",
                False,
                None,
            )
            assert row["users_with_agent_array"] == 0 and row["user_records"] == len(USERS)
        else:
            want = sum(v for (d, _), v in expected.job_starts.items() if d == day)
            assert (row["status"], row["aggregate_agent_array"], row["agent_job_starts"]) == (
                "agents reported",
                True,
                want,
            )


def test_a_missing_day_is_a_calendar_row_without_report(tmp_path):
    path = tmp_path / "w.duckdb"
    build_warehouse(path)
    missing = LAST_DAY - timedelta(days=10)
    with duckdb.connect(str(path)) as conn:
        for table in ("core.daily_totals", "core.user_daily_totals", "core.agent_activity"):
            conn.execute(f"DELETE FROM {table} WHERE day = ?", [missing])
        refresh_derived(conn)
        row = _rows(conn, "SELECT * FROM bi.report_coverage WHERE day = ?", missing)
    assert row == [
        {
            "scope": "organization",
            "scope_name": "acme",
            "day": missing,
            "aggregate_report": False,
            "aggregate_agent_array": None,
            "user_report": False,
            "user_records": None,
            "users_with_agent_array": None,
            "agent_job_starts": None,
            "is_final": None,
            "status": "no report",
        }
    ]


def test_periods_compare_each_agent_with_the_previous_28_days(known):
    conn, expected = known
    rows = {(r["period_index"], r["agent_id"]): r for r in _rows(conn, "SELECT * FROM bi.agent_usage_periods")}
    newer_start = LAST_DAY - timedelta(days=27)

    def total(agent_id, newer):
        return sum(v for (d, a), v in expected.job_starts.items() if a == agent_id and (d >= newer_start) == newer)

    def users(agent_id, newer):
        return len(
            set().union(*[u for (d, a), u in expected.users.items() if a == agent_id and (d >= newer_start) == newer])
        )

    changes = {agent: rows[(0, agent)]["change"] for agent in NAMES}
    assert changes == {"a-1": "grown", "b-2": "gone", "c-3": "new", "d-4": "shrunk"}
    for agent in NAMES:
        row = rows[(0, agent)]
        assert row["agent_job_starts"] == total(agent, True)
        assert row["previous_agent_job_starts"] == total(agent, False)
        assert row["agent_users"] == users(agent, True)
        assert row["period_start"] == newer_start and row["period_end"] == LAST_DAY
    # The oldest period has nothing before it to compare with.
    assert {rows[k]["change"] for k in rows if k[0] == 1} == {None}
    assert rows[(1, "b-2")]["agent_job_starts"] == total("b-2", False)


def test_assistant_activity_keeps_the_top_level_count_and_the_acceptance_rate(known):
    conn, expected = known
    rows = _rows(conn, "SELECT * FROM bi.assistant_activity_daily")
    assert {r["day"]: r["user_initiated_interaction_count"] for r in rows} == expected.top_level
    assert {r["acceptance_rate"] for r in rows} == {50 / 200}
    assert not [c for c in rows[0] if c.startswith("agent")]


def test_repository_activity_counts_the_last_28_days_of_the_issue_snapshot(known):
    conn, _ = known
    (row,) = _rows(conn, "SELECT * FROM bi.repository_activity")
    assert (row["stars"], row["forks"], row["open_issues"], row["open_pull_requests"]) == (12, 3, 2, 1)
    assert (row["issues_opened_28d"], row["issues_closed_28d"]) == (2, 1)
    assert (row["pull_requests_opened_28d"], row["pull_requests_closed_28d"]) == (1, 1)


def test_a_repository_only_in_the_report_reads_its_visibility_in_the_snapshot_s_words(tmp_path):
    """The report writes visibility upper case (INTERNAL), REST lower case: one vocabulary."""
    build_warehouse(tmp_path / "warehouse.duckdb")
    with duckdb.connect(str(tmp_path / "warehouse.duckdb")) as conn:
        conn.execute("UPDATE core.repository_days SET repo_visibility = 'INTERNAL' WHERE repo_id = 8")
        seen = conn.execute("SELECT DISTINCT visibility FROM bi.repository_outcomes_daily WHERE repo_id = 8").fetchall()
    assert seen == [("internal",)]


def test_repository_outcomes_take_name_and_visibility_from_the_snapshot_by_repo_id(known):
    conn, _ = known
    rows = {(r["day"], r["repo_id"]): r for r in _rows(conn, "SELECT * FROM bi.repository_outcomes_daily")}
    assert len(rows) == 4
    atlas, beacon = rows[(LAST_DAY, 7)], rows[(LAST_DAY, 8)]
    # Joined by id: the snapshot's current name, not the report's older one.
    assert (atlas["repository"], atlas["visibility"], atlas["in_snapshot"]) == ("acme/atlas", "public", True)
    assert (beacon["repository"], beacon["visibility"], beacon["in_snapshot"]) == ("acme/beacon", "private", False)
    assert atlas["suggestions_by_comment_type"] == [
        {"comment_type": "bug", "suggestions": 4, "applied": 2},
        {"comment_type": "security", "suggestions": 2, "applied": 0},
    ]
    assert (atlas["human_reviewed_merged"], atlas["median_minutes_ready_to_first_review"]) == (3, 42.5)
    # No review times landed: NULL, never zero.
    assert beacon["human_reviewed_merged"] is None and beacon["suggestions_by_comment_type"] is None
    assert rows[(LAST_DAY - timedelta(days=1), 7)]["median_minutes_ready_to_first_review"] is None


def test_views_survive_a_second_migration_run(tmp_path):
    from pipelines.warehouse import migrate

    path = tmp_path / "w.duckdb"
    build_warehouse(path)
    with duckdb.connect(str(path)) as conn:
        before = conn.execute("SELECT count(*) FROM bi.agent_usage_daily").fetchone()
        assert migrate(conn) == []
        assert conn.execute("SELECT count(*) FROM bi.agent_usage_daily").fetchone() == before


def _periods_of(tmp_path, days: dict[int, tuple[int | None, bool]]) -> dict:
    """Period 0 of one agent on a warehouse whose day `offset` (0 = the newest) has the job starts
    given (None: the report carried no agent array) and is final or not."""
    with duckdb.connect(str(tmp_path / "w.duckdb")) as conn:
        migrate(conn)
        for offset, (starts, final) in days.items():
            day = LAST_DAY - timedelta(days=offset)
            conn.execute(
                "INSERT INTO core.daily_totals (scope, scope_name, day, report_kind, agent_breakdown_present, is_final)"
                " VALUES ('organization', 'acme', ?, '1-day', ?, ?)",
                [day, starts is not None, final],
            )
            if starts is not None:
                conn.execute(
                    INSERT_AGENT_ACTIVITY + " ('organization', 'acme', 'aggregate', ?, NULL, NULL,"
                    " 'x-1', 'Xagent', ?, 1, ?)",
                    [day, starts, FETCHED],
                )
        refresh_agent_dimensions(conn, first_day=LAST_DAY - timedelta(days=max(days)), last_day=LAST_DAY)
        (row,) = _rows(conn, "SELECT * FROM bi.agent_usage_periods WHERE period_index = 0")
    return row


def test_a_short_previous_period_gets_rates_and_day_counts_but_no_change(tmp_path):
    """28 days at 10 job starts a day after 7 days at 20: more in total, half per day, and 7
    days are too few to call it."""
    row = _periods_of(tmp_path, {offset: (10 if offset < 28 else 20, True) for offset in range(35)})
    assert (row["agent_job_starts"], row["report_days"]) == (280, 28)
    assert (row["previous_agent_job_starts"], row["previous_report_days"]) == (140, 7)
    assert (row["job_starts_per_day"], row["previous_job_starts_per_day"]) == (10, 20)
    assert (row["compared_days"], row["previous_compared_days"]) == (28, 7)
    assert (row["change"], row["comparable"], row["job_starts_per_day_change"]) == (None, False, None)


def test_gap_days_and_provisional_days_never_dilute_the_rate_a_change_is_called_on(tmp_path):
    """Every 7th day of the newer period carried no agent array (a gap, not zero) and its last
    3 days are still filling in (low): per reported day it looks like a decline (83 vs 90), per
    final day with agent data it is 100 vs 90, well beyond the day-to-day noise."""
    days = {}
    for offset in range(56):
        if offset >= 28:
            days[offset] = (90, True)
        elif offset < 3:
            days[offset] = (20, False)  # provisional: the newest days, still filling in
        elif offset % 7 == 3:
            days[offset] = (None, True)  # no agent array: a gap
        else:
            days[offset] = (100, True)
    row = _periods_of(tmp_path, days)
    assert (row["report_days"], row["agent_data_days"], row["provisional_days"], row["compared_days"]) == (
        28,
        24,
        3,
        21,
    )
    assert row["agent_job_starts"] == 21 * 100 + 3 * 20
    assert (row["job_starts_per_day"], row["previous_job_starts_per_day"]) == (100, 90)
    assert row["change"] == "grown" and row["comparable"]
    assert abs(row["job_starts_per_day_change"] - (10 / 9 - 1)) < 1e-9
    assert (
        0
        < row["job_starts_per_day_change_low"]
        < row["job_starts_per_day_change"]
        < row["job_starts_per_day_change_high"]
    )


def test_a_flat_rate_with_day_to_day_noise_is_steady_not_a_change(tmp_path):
    """The same 16-a-day agent, one job start more over 28 days: steady, its interval spans 0."""
    days = {offset: (16 + (offset % 3) - 1 + (1 if offset == 0 else 0), True) for offset in range(56)}
    row = _periods_of(tmp_path, days)
    assert row["comparable"] and row["change"] == "steady"
    assert row["job_starts_per_day_change_low"] < 0 < row["job_starts_per_day_change_high"]


def test_an_agent_seen_only_on_provisional_days_is_not_called_gone(tmp_path):
    """Used every day of the previous period, then only on the newest (provisional) days."""
    days = {offset: (5 if offset >= 28 or offset < 3 else 0, offset >= 3) for offset in range(56)}
    row = _periods_of(tmp_path, days)
    assert (row["job_starts_per_day"], row["previous_job_starts_per_day"], row["comparable"]) == (0, 5, True)
    assert row["agent_job_starts"] == 15 and row["change"] is None
