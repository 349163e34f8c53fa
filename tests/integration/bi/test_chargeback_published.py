"""bi.chargeback_by_team's new forms against its definition before them (_chargeback_before.sql):
the warehouse's view, bi.chargeback_between by days, the rows the publish keeps in
billing.team_chargeback and the serving database's view over them give the same rows, on a world
of every rule (cost center by each kind of resource, credit share, each unallocated reason), and
after what changes it as a run would: a re-landed day, a re-fetched bill, a new snapshot of cost
centers and a renamed team, each published without `full`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings

from pipelines.publish.lake import publish
from pipelines.transform import billing_state as tf
from pipelines.warehouse import migrate
from pipelines.warehouse.billing_state import replace_state_day
from pipelines.warehouse.billing_usage import BillingMonth, land_billing_month
from pipelines.warehouse.chargeback import refresh_chargeback
from pipelines.warehouse.derived import refresh_derived
from pipelines.warehouse.sql import run_sql
from tests.integration.bi.test_cost_views import (
    DAY,
    ENTERPRISE,
    ORG,
    TEAMS,
    WORLD,
    WORLD_TABLES,
    bill,
    center_bill,
    conn,
    cost_center,
    derive,
    on_team,
    user_day,
    warehouse,
)

__all__ = ["conn", "warehouse"]  # fixtures: a migrated warehouse, emptied for each test

BEFORE = Path(__file__).with_name("_chargeback_before.sql")
# Four days in a row and one three weeks on: every day is computed in more than one span.
DAYS = [DAY + timedelta(days=n) for n in (0, 1, 2, 3, 20)]
COLUMNS = "scope, scope_name, day, team_id, team, rule, reason, net_amount"
# What the world below must make the view say: every rule and every reason a row can give.
REASONS = (
    "none of its teams, users or organizations is on a listed team",
    "not on the newest snapshot of cost centers",
    "a credit (negative net) is charged to no team",
    "a credit (negative net) in no cost center",
    "the cost centers add up to more than the bill",
    "no user outside the cost centers reported AI credits",
    "usage in no cost center of users on no listed team",
    "no user-level usage report of this day landed",
    "allocations rounded down",
)


def before(conn: duckdb.DuckDBPyConnection) -> Counter[tuple[Any, ...]]:
    conn.execute(BEFORE.read_text())
    return Counter(conn.execute(f"SELECT {COLUMNS} FROM bi.chargeback_before").fetchall())


def served(conn: duckdb.DuckDBPyConnection, root: Path, *, full: bool = False) -> Counter[tuple[Any, ...]]:
    """Publish the warehouse under `root` and read the serving database's view, as a BI tool does."""
    publish(conn, lake=root / "lake", serving=root / "serving.duckdb", full=full)
    with duckdb.connect(str(root / "serving.duckdb"), read_only=True) as serving:
        return Counter(serving.execute(f"SELECT {COLUMNS} FROM bi.chargeback_by_team").fetchall())


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A warehouse of its own: billing.team_chargeback and the lake start empty."""
    conn = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    migrate(conn)
    yield conn
    conn.close()


def _every_rule(conn: duckdb.DuckDBPyConnection) -> None:
    """Five days of an enterprise and its organization giving every rule and reason (REASONS)."""
    d1, d2, d3, d4, d5 = DAYS
    # d1: cost centers by a Team (40), a User spelled apart (30), an Organization (10), one of
    # nobody on a team (5); 15 in none, to dev-6 (on web and docs) by credits, dev-5's (no team) not.
    bill(conn, "100", day=d1)
    for center, net in (("cc-team", "40"), ("cc-user", "30"), ("cc-org", "10"), ("cc-nobody", "5"), ("none", "15")):
        center_bill(conn, center, net, day=d1)
    members = {
        1: [(1, "platform")],
        2: [(1, "platform"), (2, "web")],
        3: [(2, "web")],
        5: [],
        6: [(2, "web"), (3, "docs")],
    }
    for user_id, credits in ((1, "10"), (2, "30"), (3, "20"), (5, "40"), (6, "20")):
        user_day(conn, user_id, credits, day=d1)
        for team_id, slug in members[user_id]:
            on_team(conn, user_id, team_id, slug, day=d1)
    user_day(conn, 4, "0", scope="organization", scope_name=ORG, day=d1)
    on_team(conn, 4, 10, "ops", scope="organization", scope_name=ORG, day=d1)
    # d2: platform under its old slug (the Team resource names the latest); a cost center's credit,
    # one on no newest snapshot; the organization's 1 over three users: rounded down.
    bill(conn, "22", day=d2)
    for center, net in (("cc-team", "2"), ("cc-refund", "-5"), ("cc-gone", "10"), ("none", "15")):
        center_bill(conn, center, net, day=d2)
    user_day(conn, 1, "10", day=d2)
    on_team(conn, 1, 1, "plat-old", day=d2)
    bill(conn, "1", scope="organization", scope_name=ORG, day=d2)
    for user_id in (1, 2, 3):
        user_day(conn, user_id, "1", scope="organization", scope_name=ORG, day=d2)
        on_team(conn, user_id, 10 + user_id, f"org-{user_id}", scope="organization", scope_name=ORG, day=d2)
    # d3: cost centers adding up to more than the bill; the organization's refund.
    bill(conn, "10", day=d3)
    center_bill(conn, "cc-team", "30", day=d3)
    user_day(conn, 1, "5", day=d3)
    on_team(conn, 1, 1, "platform", day=d3)
    bill(conn, "-1", scope="organization", scope_name=ORG, day=d3)
    user_day(conn, 1, "1", scope="organization", scope_name=ORG, day=d3)
    # d4: no credits reported; d5: no report landed.
    bill(conn, "7", day=d4)
    center_bill(conn, "none", "7", day=d4)
    user_day(conn, 1, "0", day=d4)
    on_team(conn, 1, 1, "platform", day=d4)
    bill(conn, "3", day=d5)
    cost_center(conn, "cc-gone", "Gone", [("Team", "docs")], snapshot=d1)
    for center, name, resources in (
        ("cc-team", "Platform", [("Team", "platform")]),
        ("cc-user", "Web", [("User", "DEV-3")]),
        ("cc-org", "Ops", [("Organization", ORG)]),
        ("cc-nobody", "Contractors", [("User", "dev-99")]),
        ("cc-refund", "Refunds", [("Team", "web")]),
    ):
        cost_center(conn, center, name, resources, snapshot=d5)
    derive(conn)


def _said(rows: Counter[tuple[Any, ...]]) -> tuple[set[str], str]:
    rules = {rule for (*_, rule, _, _) in rows}
    reasons = ". ".join(reason for (*_, reason, _) in rows if reason)
    return rules, reasons


def test_every_form_of_the_chargeback_is_the_previous_views_rows_on_a_world_of_every_rule(
    fresh: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    _every_rule(fresh)
    expected = before(fresh)
    rules, reasons = _said(expected)
    assert rules == {"cost center", "credit share", "unallocated"}
    assert [reason for reason in REASONS if reason not in reasons] == []
    assert Counter(fresh.execute(f"SELECT {COLUMNS} FROM bi.chargeback_by_team").fetchall()) == expected
    # A day's rows alone read that day's: each day by bi.chargeback_between is the day's rows.
    for day in DAYS:
        alone = fresh.execute(
            "SELECT scope, scope_name, team_id, rule, reason, net_amount FROM bi.chargeback_between(?, ?)", [day, day]
        ).fetchall()
        assert Counter(alone) == Counter(
            (scope, name, team_id, rule, reason, net)
            for scope, name, d, team_id, _, rule, reason, net in expected.elements()
            if d == day
        ), day
    assert served(fresh, tmp_path / "home", full=True) == expected


def _relanded_day(conn: duckdb.DuckDBPyConnection, day: date) -> None:
    """The enterprise's report of `day` landed again, as a landing leaves it: dev-3 reported 50
    credits, not 20, and dev-6 left docs; the rows derived from them and their lake days marked."""
    conn.execute("BEGIN TRANSACTION")
    conn.execute("UPDATE core.user_daily_totals SET ai_credits_used = 50 WHERE user_id = 3 AND day = ?", [day])
    conn.execute("DELETE FROM core.user_team_days WHERE user_id = 6 AND team_id = 3 AND day = ?", [day])
    refresh_derived(conn, [("enterprise", ENTERPRISE, day)])
    tables = ["core.user_daily_totals", "core.user_team_days"]
    run_sql(conn, "warehouse/mark_lake_changes.sql", tables=tables, start_day=day, end_day=day)
    conn.execute("COMMIT")


def _refetched_bill(conn: duckdb.DuckDBPyConnection, day: date, more: Decimal) -> None:
    """The enterprise's month of the bill fetched again by the billing landing: `day` billed `more`."""
    month = day.replace(day=1)
    end = (month + timedelta(days=32)).replace(day=1) - timedelta(days=1)
    rows = conn.sql(
        "SELECT * REPLACE (net_amount + CASE WHEN day = $day THEN $more ELSE 0 END AS net_amount)"
        " FROM billing.credit_usage WHERE scope = 'enterprise' AND day BETWEEN $start AND $end",
        params={"day": day, "more": more, "start": month, "end": end},
    ).pl()
    fetches = conn.sql("SELECT * FROM billing.fetches LIMIT 0").pl()
    drift = conn.sql("SELECT * FROM raw.field_drift LIMIT 0").pl()
    land_billing_month(
        conn, BillingMonth("enterprise", ENTERPRISE, "billing.credit_usage", month, end, rows, fetches, drift)
    )


def _new_snapshot(conn: duckdb.DuckDBPyConnection, day: date) -> None:
    """A newer snapshot of the cost centers as the billing state lands it: Web now holds dev-1."""
    at = datetime(2026, 11, 20, tzinfo=UTC)
    records = [
        {"id": "cc-team", "name": "Platform", "resources": [{"type": "Team", "name": "platform"}]},
        {"id": "cc-user", "name": "Web", "resources": [{"type": "User", "name": "dev-1"}]},
        {"id": "cc-org", "name": "Ops", "resources": [{"type": "Organization", "name": ORG}]},
    ]
    centers, resources = tf.cost_center_frames(records, day=day, enterprise=ENTERPRISE, fetched_at=at)
    frames = {
        "billing.cost_centers": centers,
        "billing.cost_center_resources": resources,
        "billing.budgets": tf.budgets_frame([], day=day, enterprise=ENTERPRISE, fetched_at=at),
        "billing.budget_user_states": tf.budget_user_states_frame({}, day=day, enterprise=ENTERPRISE, fetched_at=at),
        "billing.seat_breakdown": tf.seat_breakdown_frame({}, day=day, fetched_at=at),
    }
    replace_state_day(conn, day=day, frames=frames, owners=(ENTERPRISE,))


def _renamed_team(conn: duckdb.DuckDBPyConnection, day: date) -> None:
    """Team 1 listed as platform-2 on a later day's report: its latest slug, so Platform's Team
    resource no longer names it on the day it was plat-old."""
    conn.execute("BEGIN TRANSACTION")
    user_day(conn, 1, "1", day=day)
    on_team(conn, 1, 1, "platform-2", day=day)
    refresh_derived(conn, [("enterprise", ENTERPRISE, day)])
    tables = ["core.user_daily_totals", "core.user_team_days"]
    run_sql(conn, "warehouse/mark_lake_changes.sql", tables=tables, start_day=day, end_day=day)
    conn.execute("COMMIT")


def test_after_a_re_landed_day_a_re_fetched_bill_new_cost_centers_and_a_rename_the_serving_rows_are_the_previous_views(
    fresh: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    _every_rule(fresh)
    home = tmp_path / "home"
    assert served(fresh, home, full=True) == before(fresh)
    d1, d2, *_, d5 = DAYS
    changes = (
        lambda: _relanded_day(fresh, d1),
        lambda: _refetched_bill(fresh, d2, Decimal("4.5")),
        lambda: _renamed_team(fresh, d5 + timedelta(days=1)),
        lambda: _new_snapshot(fresh, d5 + timedelta(days=2)),
    )
    for n, change in enumerate(changes):
        was = before(fresh)
        change()
        now = before(fresh)
        assert now != was, f"change {n} changed no row: it proves nothing"
        assert served(fresh, home) == now, f"after change {n}"


def _random_world(conn: duckdb.DuckDBPyConnection, world: dict[str, Any]) -> None:
    """A world of test_cost_views.py's WORLD, landed as its random test lands it: users 1..n with
    their credits on random teams of both scopes, cost centers of random resources and nets."""
    for table in WORLD_TABLES:
        conn.execute(f"DELETE FROM {table}")  # the fixture's own tables, named in test_cost_views.py
    credits = dict(enumerate(world["credits"], start=1))
    team_ids = {slug: n for n, slug in enumerate(TEAMS, start=1)}
    bill(conn, sum((net for net, _ in world["centers"]), Decimal(0)) + world["none"])
    bill(conn, world["org_bill"], scope="organization", scope_name=ORG)
    for n, (net, resources) in enumerate(world["centers"]):
        center_bill(conn, f"cc-{n}", net)
        cost_center(conn, f"cc-{n}", f"Center {n}", resources, snapshot=DAY)
    center_bill(conn, "none", world["none"])
    for user, amount in credits.items():
        for scope, scope_name in (("enterprise", ENTERPRISE), ("organization", ORG)):
            if scope == "organization" and not world["org_users"][user - 1]:
                continue
            user_day(conn, user, amount, scope=scope, scope_name=scope_name)
            for slug in world["teams"][user - 1]:
                on_team(conn, user, team_ids[slug], slug, scope=scope, scope_name=scope_name)
    derive(conn)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(world=WORLD)
def test_for_any_world_the_rows_the_publish_keeps_are_the_previous_views(
    conn: duckdb.DuckDBPyConnection, world: dict[str, Any]
) -> None:
    _random_world(conn, world)
    refresh_chargeback(conn, full=True)
    kept = conn.execute(
        "SELECT c.scope, c.scope_name, c.day, c.team_id,"
        " CASE WHEN c.team_id IS NULL THEN 'unallocated' ELSE coalesce(d.slug, CAST(c.team_id AS VARCHAR)) END,"
        " c.rule, c.reason, c.net_amount FROM billing.team_chargeback AS c LEFT JOIN core.dim_team AS d"
        " ON d.scope = c.team_scope AND d.scope_name = c.team_scope_name AND d.team_id = c.team_id"
    ).fetchall()
    assert Counter(kept) == before(conn)
