"""The aggregate tier's cost counts people, not spellings of their logins: the service's logins are
case-insensitive (docs/privacy.md: "a login (any case)"), and the usage export may spell one
person's apart from day to day. The world of test_aggregate_tier_cost.py (K=3; cost center Bravo
holds two people, dev-4 and dev-5, and stays hidden)."""

from __future__ import annotations

from pathlib import Path

from pipelines.publish.lake import publish
from pipelines.warehouse.rollups import rebuild_rollups
from pipelines.warehouse.sql import connect
from tests.integration.bi.test_aggregate_tier_cost import DAYS, USERS, K, _land_billing, _rows, _world, credits
from tests.integration.bi.test_aggregate_tier_differences import _land, template

__all__ = ["template"]  # the migrated warehouse each test copies (a fixture)


def test_a_cost_center_of_two_people_stays_hidden_when_one_login_comes_in_two_spellings(
    template: Path, tmp_path: Path
) -> None:
    root = tmp_path / "world"
    root.mkdir()
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
        # One day of dev-4's export lines spelled DEV-4: still one person, so Bravo is still two.
        conn.execute(
            "UPDATE billing.user_usage SET user_login = 'DEV-4' WHERE user_login = 'dev-4' AND day = ?", [DAYS[0]]
        )
        publish(conn, lake=root / "lake", serving=root / "serving.duckdb", k=K, full=True)
    rows = {r["cost_center_id"]: r for r in _rows(root / "serving.duckdb", "cost_center_periods")}
    assert rows["cc-b"]["suppressed"] is True, f"Bravo (dev-4 and dev-5 only) shown: {rows['cc-b']}"
    assert rows["cc-a"]["suppressed"] is False, "Alpha (three people) is shown"


def test_teams_of_a_shown_cost_center_s_people_stay_hidden_when_the_report_spells_their_logins_apart(
    template: Path, tmp_path: Path
) -> None:
    # Enterprise team E1 (Alpha's three people, 8 and 14) and an organization team of the same
    # people, charged by credits: either figure less Alpha's would be 8's and 14's cost. The team
    # report spells Alpha's people in capitals, the export in small letters: they are the same
    # people, so neither team is shown beside Alpha.
    root = tmp_path / "world"
    root.mkdir()
    warehouse = root / "warehouse.duckdb"
    warehouse.write_bytes(template.read_bytes())
    world = _world()
    world.teams[("organization", "o0", 2005)] = frozenset({1, 2, 3, 8, 14})
    with connect(warehouse) as conn:
        _land(conn, world)
        for u in USERS:
            for day in DAYS:
                conn.execute(
                    "UPDATE core.user_daily_totals SET ai_credits_used = ? WHERE user_id = ? AND day = ?",
                    [credits(u, day), u, day],
                )
        rebuild_rollups(conn)
        _land_billing(conn)
        conn.execute("UPDATE core.user_team_days SET user_login = upper(user_login) WHERE user_id IN (1, 2, 3)")
        publish(conn, lake=root / "lake", serving=root / "serving.duckdb", k=K, full=True)
    centers = {r["cost_center_id"]: r for r in _rows(root / "serving.duckdb", "cost_center_periods")}
    assert centers["cc-a"]["suppressed"] is False, "Alpha (three people) is shown"
    teams = {(r["scope"], r["team_id"]): r for r in _rows(root / "serving.duckdb", "team_periods_cost")}
    shown = [key for key in (("enterprise", 1001), ("organization", 2005)) if not teams[key]["suppressed"]]
    assert not shown, f"teams of Alpha's people shown beside it: {shown}"
