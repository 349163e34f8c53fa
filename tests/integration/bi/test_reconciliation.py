"""bi.reconciliation on a hand-built warehouse: each day is shaped to tempt one mistake (calling
a provisional day's gap a discrepancy, blaming the service for lines we refused, comparing a
day that has no user report, adding an enterprise to its organization)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import duckdb
import pytest

from emulator import EmulatorConfig, running_emulator
from pipelines.defs.usage.checks import RUN_CHECKS
from pipelines.ingest import ingest_report
from pipelines.service import ReportRef, ServiceClient
from pipelines.warehouse import migrate
from pipelines.warehouse.checks import run_checks
from tests._emulator import settings_for
from tests.integration.bi._warehouse import refresh_derived

ORG, ENT = ("organization", "acme"), ("enterprise", "acme-corp")
AGREES, PROVISIONAL, REFUSED_LINE, NO_USERS, WITHIN, OFF, ORG_OVER = (date(2026, 11, d) for d in range(1, 8))
LATE = datetime(2026, 11, 20, 6, tzinfo=UTC)  # every day above final by then
RECONCILIATION = next(c for c in RUN_CHECKS if c.name == "reconciliation_holds")


def _aggregate(conn, scope, day, interactions, *, active=2, final=True, agents=None, fetched=LATE) -> None:
    conn.execute(
        "INSERT INTO core.daily_totals (scope, scope_name, day, report_kind, user_initiated_interaction_count,"
        " daily_active_users, agent_breakdown_present, fetched_at, is_final) VALUES (?, ?, ?, '1-day', ?, ?, ?, ?, ?)",
        [*scope, day, interactions, active, agents is not None, fetched, final],
    )
    if agents is not None:
        conn.execute(
            "INSERT INTO core.agent_activity (scope, scope_name, level, day, agent_id, agent_name, agent_job_starts,"
            " session_count, fetched_at, is_final) VALUES (?, ?, 'aggregate', ?, 'x-1', 'X', ?, 1, ?, ?)",
            [*scope, day, agents, fetched, final],
        )


def _users(conn, scope, day, interactions: list[int], *, final=True, agents=None, fetched=LATE) -> None:
    for n, count in enumerate(interactions):
        conn.execute(
            "INSERT INTO core.user_daily_totals (scope, scope_name, day, report_kind, user_id,"
            " user_initiated_interaction_count, agent_breakdown_present, fetched_at, is_final)"
            " VALUES (?, ?, ?, '1-day', ?, ?, ?, ?, ?)",
            [*scope, day, 100 + n, count, agents is not None, fetched, final],
        )
    if agents is not None:
        conn.execute(
            "INSERT INTO core.agent_activity (scope, scope_name, level, day, user_id, agent_id, agent_name,"
            " agent_job_starts, fetched_at, is_final) VALUES (?, ?, 'user', ?, 100, 'x-1', 'X', ?, ?, ?)",
            [*scope, day, agents, fetched, final],
        )


@pytest.fixture(scope="module")
def conn(tmp_path_factory) -> Iterator[duckdb.DuckDBPyConnection]:
    path: Path = tmp_path_factory.mktemp("reconciliation") / "w.duckdb"
    c = duckdb.connect(str(path))
    migrate(c)
    _aggregate(c, ORG, AGREES, 100, agents=5)
    _users(c, ORG, AGREES, [60, 40], agents=5)
    # Fetched on Nov 5 (aggregate) and Nov 4 (users): the day was still filling in both times.
    _aggregate(c, ORG, PROVISIONAL, 130, final=False, fetched=datetime(2026, 11, 5, tzinfo=UTC))
    _users(c, ORG, PROVISIONAL, [60, 50], final=False, fetched=datetime(2026, 11, 4, tzinfo=UTC))
    _aggregate(c, ORG, REFUSED_LINE, 100)
    _users(c, ORG, REFUSED_LINE, [90])  # the second user's line was refused at ingest
    c.execute(
        "INSERT INTO raw.quarantine (scope, scope_name, report_kind, level, report_start_day, report_end_day,"
        " file_index, archive_path, link, line_number, reason, line_text, fetched_at)"
        " VALUES ('organization', 'acme', '1-day', 'user', ?, ?, 0, 'a', 'l', 2, 'malformed JSON', ?, ?)",
        [REFUSED_LINE, REFUSED_LINE, f'{{"day": "{REFUSED_LINE}", "user_id": 101, "user_initiated', LATE],
    )
    _aggregate(c, ORG, NO_USERS, 100)
    _aggregate(c, ORG, WITHIN, 1000)
    _users(c, ORG, WITHIN, [600, 395])
    _aggregate(c, ORG, OFF, 100)
    _users(c, ORG, OFF, [60, 20])
    # The enterprise holds the organization's users (and more): it is the organization's enterprise.
    _users(c, ENT, AGREES, [60, 40, 10])
    _aggregate(c, ENT, AGREES, 110, active=3, agents=5)
    _users(c, ENT, ORG_OVER, [60, 30])
    _aggregate(c, ORG, ORG_OVER, 100)
    _users(c, ORG, ORG_OVER, [60, 40])
    _aggregate(c, ENT, ORG_OVER, 90)
    refresh_derived(c)
    yield c
    c.close()


def _row(conn, day, measure="user_initiated_interaction_count", comparison="aggregate vs users", scope=ORG):
    cursor = conn.execute(
        "SELECT * FROM bi.reconciliation WHERE day = ? AND measure = ? AND comparison = ? AND scope = ?",
        [day, measure, comparison, scope[0]],
    )
    names = [d[0] for d in cursor.description]
    rows = [dict(zip(names, r, strict=True)) for r in cursor.fetchall()]
    assert len(rows) == 1, rows
    return rows[0]


def test_a_final_day_where_both_reports_agree_has_no_reason(conn):
    for measure in ("user_initiated_interaction_count", "active_users", "agent_job_starts"):
        row = _row(conn, AGREES, measure)
        assert (row["status"], row["difference"], row["reason"], row["is_final"]) == ("agrees", 0, None, True)


def test_a_provisional_gap_is_explained_by_finality_not_called_a_discrepancy(conn):
    row = _row(conn, PROVISIONAL)
    assert (row["reported_value"], row["compared_value"], row["difference"]) == (130, 110, 20)
    assert row["status"] == "explained" and not row["is_final"]
    assert row["reason"].startswith("provisional") and "either report" in row["reason"]


def test_lines_we_refused_explain_a_final_day_short_of_its_aggregate(conn):
    row = _row(conn, REFUSED_LINE)
    assert (row["difference"], row["status"]) == (10, "explained")
    assert row["reason"].startswith("1 user-level line(s) of this day were refused at ingest")


def test_a_day_without_a_user_report_is_not_compared(conn):
    row = _row(conn, NO_USERS)
    assert (row["compared_value"], row["difference"], row["status"]) == (None, None, "not comparable")
    assert row["reason"] == "no user-level report landed for this day"


def test_a_small_difference_on_a_final_day_is_within_the_stated_share(conn):
    row = _row(conn, WITHIN)
    assert (row["difference"], row["difference_share"], row["tolerance_share"]) == (5, 0.005, 0.01)
    assert row["status"] == "explained" and row["reason"].startswith("within 1%")


def test_a_final_day_off_by_a_fifth_is_unexplained_and_the_check_warns(conn):
    row = _row(conn, OFF)
    assert (row["difference_share"], row["status"]) == (0.2, "unexplained")
    assert "bi.report_drift" in row["reason"]
    (outcome,) = run_checks(conn, [RECONCILIATION], start_day=AGREES, end_day=ORG_OVER)
    assert not outcome.passed and not RECONCILIATION.blocking
    assert outcome.failures == 2  # this day, and the organization over its enterprise below
    assert "organization acme 2026-11-06 aggregate vs users user_initiated_interaction_count 100 vs 80" in (
        outcome.detail
    )
    (quiet,) = run_checks(conn, [RECONCILIATION], start_day=AGREES, end_day=WITHIN)
    assert quiet.passed


def test_an_enterprise_above_its_organization_is_expected_never_summed(conn):
    row = _row(conn, AGREES, comparison="enterprise vs organization", scope=ENT)
    assert (row["scope_name"], row["organization"]) == ("acme-corp", "acme")
    assert (row["reported_value"], row["compared_value"], row["difference"]) == (110, 100, 10)
    assert row["status"] == "explained"
    assert "other organizations" in row["reason"]
    over = _row(conn, ORG_OVER, comparison="enterprise vs organization", scope=ENT)
    assert (over["difference"], over["status"]) == (-10, "unexplained")


def test_agent_job_starts_are_not_compared_on_a_day_without_the_agent_array(conn):
    row = _row(conn, REFUSED_LINE, "agent_job_starts")
    assert row["status"] == "not comparable" and "gap, not zero" in row["reason"]


def test_every_row_that_differs_says_why(conn):
    (unexplained_without_reason,) = conn.execute(
        "SELECT count(*) FROM bi.reconciliation WHERE difference <> 0 AND reason IS NULL"
    ).fetchone()
    assert unexplained_without_reason == 0


def test_over_loopback_every_difference_between_reports_has_a_reason(tmp_path):
    """Late data over the emulator: the aggregate report of a provisional day is fetched again
    after it grew, its user-level report is not; final days agree; the enterprise holds the
    organization. Every difference the view finds must carry a reason, none unexplained."""
    today = date(2026, 11, 20)
    days = [today - timedelta(days=n) for n in (6, 5, 2, 1)]  # two final, two provisional
    config = EmulatorConfig(seed=5, users=30, today=today, user_lines_per_file=50)
    with running_emulator(config) as emu, ServiceClient(config=settings_for(emu).service_config()) as client:
        warehouse = duckdb.connect(str(tmp_path / "w.duckdb"))
        migrate(warehouse)
        for scope, name in (ORG, ENT):
            for day in days:
                for level in ("aggregate", "user"):
                    ref = ReportRef(scope, name, "1-day", level, day)
                    ingest_report(client=client, ref=ref, conn=warehouse, raw_dir=tmp_path / "raw")
            for day in days[2:]:  # late data: the aggregate grew since the user report was fetched
                ingest_report(
                    client=client,
                    ref=ReportRef(scope, name, "1-day", "aggregate", day),
                    conn=warehouse,
                    raw_dir=tmp_path / "raw",
                )
    rows = warehouse.execute(
        "SELECT day, comparison, measure, is_final, difference, status, reason FROM bi.reconciliation"
    ).fetchall()
    warehouse.close()
    differing = [r for r in rows if r[4]]
    assert differing, "late data must make the provisional days differ"
    assert all(r[5] == "explained" and r[6] for r in differing), [r for r in differing if r[5] != "explained"]
    provisional = {r[0] for r in differing if r[1] == "aggregate vs users" and "provisional" in r[6]}
    assert provisional == set(days[2:])
    # A final day differs only in active users, by the classes the service counts otherwise.
    final = [r for r in rows if r[1] == "aggregate vs users" and r[3] and r[5] != "not comparable"]
    assert final and {r[5] for r in final if r[2] != "active_users"} == {"agrees"}
    assert all("provisional" not in (r[6] or "") for r in final)
