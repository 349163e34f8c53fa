"""core.credit_team_sets, what bi.chargeback_by_team reads instead of user rows: an enterprise's
users with credits grouped by their teams, their organizations' teams and reports, whichever of
the enterprise and an organization lands first, equal to a rebuild; a user on more than 16 teams
a group alone, without their id."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import duckdb
import pytest

from pipelines.warehouse import migrate
from pipelines.warehouse.rollups import rebuild_rollups, refresh_rollups

DAY = date(2026, 11, 10)
ENTERPRISE, ORG = "big", "acme"
WIDE = range(100, 117)  # 17 teams: more than a split in whole units divides evenly


@pytest.fixture(scope="module")
def warehouse() -> duckdb.DuckDBPyConnection:
    conn = duckdb.connect()
    migrate(conn)
    return conn


def _land(conn: duckdb.DuckDBPyConnection, scope: str) -> None:
    """The rows a landing of the scope's day writes, then its rollups, as land_report does."""
    name = ENTERPRISE if scope == "enterprise" else ORG
    # (user, credits, teams): dev-1 on an enterprise team and the organization's team 5 (and in
    # its report), dev-2 on the enterprise team alone, dev-3 with no credits, dev-4 and dev-5 on 17 teams.
    users = {
        "enterprise": [(1, "10", [1]), (2, "5", [1]), (3, "0", [1]), (4, "1", list(WIDE)), (5, "2", list(WIDE))],
        "organization": [(1, "4", [5])],
    }[scope]
    for user, credits, teams in users:
        conn.execute(
            "INSERT INTO core.user_daily_totals (scope, scope_name, day, report_kind, user_id, user_login,"
            " agent_breakdown_present, ai_credits_used, is_final) VALUES (?, ?, ?, '1-day', ?, ?, TRUE, ?, TRUE)",
            [scope, name, DAY, user, f"dev-{user}", credits],
        )
        for team in teams:
            conn.execute(
                "INSERT INTO core.user_team_days (scope, scope_name, day, user_id, user_login, team_id, slug,"
                " fetched_at) VALUES (?, ?, ?, ?, ?, ?, 't', now())",
                [scope, name, DAY, user, f"dev-{user}", team],
            )
    refresh_rollups(conn, scope=scope, scope_name=name, start_day=DAY, end_day=DAY)


def _sets(conn: duckdb.DuckDBPyConnection) -> list[tuple[object, ...]]:
    return conn.execute(
        "SELECT scope_name, [(t.team_scope, t.team_id) FOR t IN teams], scope_teams, organizations, alone,"
        " credited_users, ai_credits FROM core.credit_team_sets ORDER BY scope, team_set"
    ).fetchall()


@pytest.mark.parametrize("order", [("enterprise", "organization"), ("organization", "enterprise")])
def test_an_enterprises_credit_sets_hold_its_users_organization_teams_whichever_lands_first(
    warehouse: duckdb.DuckDBPyConnection, order: tuple[str, str]
) -> None:
    conn = warehouse
    conn.execute("BEGIN TRANSACTION")
    for table in ("core.user_daily_totals", "core.user_team_days", "core.credit_team_sets"):
        conn.execute(f"DELETE FROM {table}")
    for scope in order:
        _land(conn, scope)
    landed = _sets(conn)
    wide = [("enterprise", team) for team in WIDE]
    assert landed == [
        (ENTERPRISE, [("enterprise", 1)], 1, [], 0, 1, Decimal("5")),
        (ENTERPRISE, [("enterprise", 1), ("organization", 5)], 1, [ORG], 0, 1, Decimal("10")),
        # Each alone, numbered by credits: no user id in the rollup.
        (ENTERPRISE, wide, 17, [], 1, 1, Decimal("1")),
        (ENTERPRISE, wide, 17, [], 2, 1, Decimal("2")),
        (ORG, [("organization", 5)], 1, [], 0, 1, Decimal("4")),
    ]
    conn.execute("COMMIT")
    rebuild_rollups(conn)
    assert _sets(conn) == landed
