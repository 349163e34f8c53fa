"""The aggregate tier's cost figures (aggregate.cost_center_periods, aggregate.team_periods_cost):
no figure about fewer than k people, no per-user cost, and no difference of two shown figures,
nor a cost center less its teams, that is the cost of a group of fewer than k people.

A hand-built world, landed as a run leaves it (usage facts with each user's reported AI credits,
their teams, and the billing tables: the bill, per cost center, the usage export per user), then
the real rollups, the views, and the publish of the lake and the tier. Each user's bill is their
credits at $0.01, so the rules of bi.chargeback_by_team hand every team exactly its members'
shares: the worst case, where two figures' difference is most often someone's cost. It holds the
shapes a reader would subtract: a cost center of two people; an organization team of one person
fewer than another; an enterprise team charged a whole cost center and two more people's shares
by credits; an enterprise team and an organization team of the same people whose parts differ
(two of them are on a second team of the organization); a team of two.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from itertools import combinations
from pathlib import Path

import duckdb
import pytest

from pipelines.page._aggregate import render_aggregate_page
from pipelines.publish.aggregate import aggregate_serving
from pipelines.publish.lake import publish
from pipelines.warehouse.rollups import rebuild_rollups
from pipelines.warehouse.sql import connect
from tests.integration.bi.test_aggregate_tier_differences import ENTERPRISE, LAST_DAY, World, _land, template

__all__ = ["template"]  # the migrated warehouse each test copies (a fixture)

K = 3
USERS = range(1, 15)
DAYS = tuple(LAST_DAY - timedelta(days=n) for n in range(3))
FETCHED = "2026-11-25 06:00:00+00"
# cost center id → (name, its User resources)
CENTERS = {"cc-a": ("Alpha", (1, 2, 3)), "cc-b": ("Bravo", (4, 5))}
TEAMS = {
    # E1 is charged all of Alpha (its users are on no other enterprise team) and the shares by
    # credits of 8 and 14 (in no cost center): E1 less Alpha would be their cost.
    ("enterprise", ENTERPRISE, 1001): frozenset({1, 2, 3, 8, 14}),
    # E2 is charged by credits alone; O1 has its people, but 11 and 12 are on O4 too, so their
    # parts of O1 are halves: E2 less O1 would be half of 11's and 12's cost.
    ("enterprise", ENTERPRISE, 1002): frozenset({6, 9, 10, 11, 12}),
    ("organization", "o0", 2001): frozenset({6, 9, 10, 11, 12}),
    # O2 is O3 less user 13: O3 less O2 would be user 13's cost.
    ("organization", "o0", 2002): frozenset({4, 5, 7}),
    ("organization", "o0", 2003): frozenset({4, 5, 7, 13}),
    ("organization", "o0", 2004): frozenset({11, 12}),
}


def credits(user: int, day: date) -> Decimal:
    """A user's reported AI credits of a day; their bill is the same credits at $0.01. Powers of 3:
    no two groups' sums, nor a group's and half another's, are the same by chance."""
    return Decimal(3**user + day.day % 3)


def net(user: int, day: date) -> Decimal:
    return credits(user, day) / 100


def _center_of(user: int) -> str | None:
    return next((cid for cid, (_, users) in CENTERS.items() if user in users), None)


def _world() -> World:
    activity = {(u, d): (u, 1, 1, 2, u, 1) for u in USERS for d in DAYS}
    world = World(K, dict.fromkeys(USERS, "o0"), ("o0",), DAYS, activity, {})
    world.teams.update(TEAMS)
    return world


def _land_billing(conn: duckdb.DuckDBPyConnection) -> None:
    """The billing tables a run lands for the world: the bill of both scopes, the enterprise's per
    cost center and none, its cost centers and their User resources, and the usage export per user."""
    landed = {"month_closed": True, "fetched_at": FETCHED}
    line = {"meter": "ai_credit", "product": "copilot", "sku": "copilot_ai_credit", "model": "GPT-5.2"}

    def amounts(total: Decimal) -> dict[str, object]:
        return {
            "unit_type": "ai-credits",
            "price_per_unit": Decimal("0.01"),
            "gross_quantity": total * 100,
            "gross_amount": total,
            "discount_quantity": 0,
            "discount_amount": 0,
            "net_quantity": total * 100,
            "net_amount": total,
        }

    def insert(table: str, row: dict[str, object]) -> None:
        columns = ", ".join(f"? AS {name}" for name in row)
        conn.execute(f"INSERT INTO billing.{table} BY NAME SELECT {columns}", list(row.values()))

    for day in DAYS:
        total = sum(net(u, day) for u in USERS)
        for scope, name in (("enterprise", ENTERPRISE), ("organization", "o0")):
            insert("credit_usage", {"scope": scope, "scope_name": name, "day": day, **line, **amounts(total), **landed})
        for cid in (*CENTERS, "none"):
            part = sum(net(u, day) for u in USERS if (_center_of(u) or "none") == cid)
            insert(
                "cost_center_usage",
                {
                    "scope": "enterprise",
                    "scope_name": ENTERPRISE,
                    "day": day,
                    "cost_center_id": cid,
                    "cost_center_name": CENTERS[cid][0] if cid in CENTERS else None,
                    **line,
                    **amounts(part),
                    **landed,
                },
            )
        for u in USERS:
            cid = _center_of(u)
            insert(
                "user_usage",
                {
                    "scope": "enterprise",
                    "scope_name": ENTERPRISE,
                    "day": day,
                    "user_login": f"dev-{u}",
                    "user_id": u,
                    "product": "copilot",
                    "sku": "copilot_ai_credit",
                    "model": "GPT-5.2",
                    "organization": "o0",
                    "cost_center_name": CENTERS[cid][0] if cid else None,
                    "quantity": credits(u, day),
                    "unit_type": "ai-credits",
                    "applied_cost_per_quantity": Decimal("0.01"),
                    "gross_amount": net(u, day),
                    "discount_amount": 0,
                    "net_amount": net(u, day),
                    **landed,
                },
            )
    for cid, (name, users) in CENTERS.items():
        snapshot = {"snapshot_day": LAST_DAY, "enterprise": ENTERPRISE, "cost_center_id": cid, "fetched_at": FETCHED}
        insert("cost_centers", {**snapshot, "name": name, "state": "active"})
        for u in users:
            insert("cost_center_resources", {**snapshot, "resource_type": "User", "resource_name": f"dev-{u}"})


def _publish(template: Path, root: Path, *, without: str | None = None) -> Path:
    """The world landed and published under `root`; `without`: a login whose export lines are missing."""
    root.mkdir(parents=True)
    warehouse = root / "warehouse.duckdb"
    warehouse.write_bytes(template.read_bytes())
    with connect(warehouse) as conn:
        _land(conn, _world())
        for u in USERS:
            for day in DAYS:
                conn.execute(
                    "UPDATE core.user_daily_totals SET ai_credits_used = ? WHERE user_id = ? AND day = ?",
                    [credits(u, day), u, day],
                )
        rebuild_rollups(conn)
        _land_billing(conn)
        conn.execute("DELETE FROM billing.user_usage WHERE user_login = ?", [without])
        publish(conn, lake=root / "lake", serving=root / "serving.duckdb", k=K, full=True)
    return root / "serving.duckdb"


@pytest.fixture(scope="module")
def published(template, tmp_path_factory) -> Path:
    return _publish(template, tmp_path_factory.mktemp("cost-tier") / "world")


def _rows(path: Path, table: str) -> list[dict[str, object]]:
    with duckdb.connect(str(aggregate_serving(path)), read_only=True) as tier:
        result = tier.execute(f"SELECT * FROM aggregate.{table} ORDER BY ALL")
        columns = [c[0] for c in result.description]
        return [dict(zip(columns, row, strict=True)) for row in result.fetchall()]


def _full(path: Path, sql: str) -> list[tuple[object, ...]]:
    with duckdb.connect(str(path), read_only=True) as serving:
        return serving.execute(sql).fetchall()


def _person_values() -> list[dict[int, Decimal]]:
    """What each person's cost could be read as: their bill, and their part of a team of each
    scope (the bill is the credits at $0.01, so a person's share by credits is their bill, split
    between the teams of that scope they are on)."""
    bill = {u: sum(net(u, d) for d in DAYS) for u in USERS}
    values = [bill]
    for scope in ("enterprise", "organization"):
        teams = {u: sum(1 for (s, _, _), people in TEAMS.items() if s == scope and u in people) for u in USERS}
        values.append({u: bill[u] / teams[u] for u in USERS if teams[u]})
    return values


def test_a_cost_center_of_k_people_or_more_is_shown_to_the_cent_and_one_of_fewer_hidden(published):
    rows = {r["cost_center_id"]: r for r in _rows(published, "cost_center_periods")}
    assert set(rows) == set(CENTERS)  # usage in no cost center is not in the tier
    alpha = sum(net(u, d) for u in CENTERS["cc-a"][1] for d in DAYS)
    assert (rows["cc-a"]["suppressed"], rows["cc-a"]["net_amount"]) == (False, alpha)
    assert (rows["cc-b"]["suppressed"], rows["cc-b"]["net_amount"]) == (True, None)


def test_a_team_is_shown_only_where_its_period_is_and_no_cost_center_or_team_of_another_scope_is_nearly_it(
    published,
):
    shown = {(r["scope"], r["team_id"]): r["net_amount"] for r in _rows(published, "team_periods_cost")}
    periods = {(r["scope"], r["team_id"]): r["suppressed"] for r in _rows(published, "team_periods")}
    full = dict(
        ((scope, team_id), amount)
        for scope, team_id, amount in _full(
            published,
            "SELECT scope, team_id, sum(net_amount) FROM bi.chargeback_by_team WHERE team_id IS NOT NULL GROUP BY ALL",
        )
    )
    for key, amount in shown.items():
        if amount is not None:
            assert not periods[key], f"{key}: shown where its team period is hidden"
            assert amount == full[key], f"{key}: the full tier's charge"
    assert shown[("enterprise", 1001)] is None  # E1 less Alpha would be 8's and 14's
    assert shown[("enterprise", 1002)] is not None
    assert shown[("organization", 2001)] is None  # E2 less O1 would be half of 11's and 12's
    assert shown[("organization", 2002)] is None  # O3 less O2 would be user 13's
    assert shown[("organization", 2003)] is not None
    assert shown[("organization", 2004)] is None  # two people


def test_no_cost_figure_nor_difference_of_two_is_the_cost_of_fewer_than_k_people(published):
    figures = [
        (f"cost center {r['cost_center_id']}", r["net_amount"])
        for r in _rows(published, "cost_center_periods")
        if r["net_amount"] is not None
    ] + [
        (f"team {r['scope']} {r['team_id']}", r["net_amount"])
        for r in _rows(published, "team_periods_cost")
        if r["net_amount"] is not None
    ]
    assert len(figures) >= 3
    readings = [*((name, value) for name, value in figures)]
    readings += [(f"{a} minus {b}", va - vb) for (a, va), (b, vb) in combinations(figures, 2)]
    readings += [(f"{b} minus {a}", vb - va) for (a, va), (b, vb) in combinations(figures, 2)]
    small = [
        (group, sum(values[u] for u in group))
        for values in _person_values()
        for size in range(1, K)
        for group in combinations(sorted(values), size)
    ]
    found = [
        f"{name} = {value} is the cost of {group}"
        for name, value in readings
        for group, cost in small
        if abs(value - cost) < Decimal("0.005")
    ]
    assert not found, "; ".join(found[:8])


def test_the_tier_holds_no_login_and_no_per_user_cost(published):
    for table in ("cost_center_periods", "team_periods_cost"):
        for row in _rows(published, table):
            assert "user" not in " ".join(row), table
            assert not any(str(v).startswith("dev-") for v in row.values()), table


def test_a_cost_center_its_export_lines_do_not_add_up_to_is_hidden(template, tmp_path):
    """Whom a cost center's figure is about is known only from the usage export's lines of it: one
    user's lines missing (an export not landed for them), the figure is hidden, not guessed."""
    serving = _publish(template, tmp_path / "world", without="dev-1")
    rows = {r["cost_center_id"]: r for r in _rows(serving, "cost_center_periods")}
    assert (rows["cc-a"]["suppressed"], rows["cc-a"]["net_amount"]) == (True, None)


def test_the_aggregate_page_shows_the_tier_s_cost_and_says_what_it_hides(published):
    with duckdb.connect(str(aggregate_serving(published)), read_only=True) as tier:
        page = render_aggregate_page(tier, generated=datetime(2026, 11, 25, tzinfo=UTC))
    cost = re.search(r'<section class="card" id="cost">(.*?)</section>', page, re.S).group(1)
    rows = re.findall(r'<tr class="cost-row" data-kind="([^"]+)">(.*?)</tr>', cost, re.S)
    shown = {re.search(r"<td[^>]*>([^<]+)</td>", cells).group(1) for _, cells in rows if "hidden" not in cells}
    assert shown == {"Cost center: Alpha", "Team: team-1002", "Team: team-2003"}
    assert sum("hidden: could tell of fewer than k people" in cells for _, cells in rows) == len(rows) - 3
    assert "dev-" not in page
