"""The cost views at their edges, on bills written by hand (the helpers of test_cost_views.py):
logins in any spelling (the service's are case-insensitive: one person), cost centers deleted or
gone from the newest snapshot, and what an unallocated reason says."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import duckdb

from tests.integration.bi.test_cost_views import (
    DAY,
    ORG,
    bill,
    budget,
    center_bill,
    chargeback,
    conn,
    cost_center,
    derive,
    on_team,
    user_bill,
    user_day,
    warehouse,
)

__all__ = ["conn", "warehouse"]  # fixtures: a migrated warehouse, emptied for each test


def consumed(conn: duckdb.DuckDBPyConnection) -> dict[str, Decimal]:
    rows = conn.execute("SELECT budget_id, consumed_to_date FROM bi.budget_burn").fetchall()
    return dict(rows)


def test_a_user_budget_consumes_its_user_s_export_lines_whatever_the_spelling_of_the_login(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    bill(conn, "5")
    user_bill(conn, "DEV-1", "300")
    user_bill(conn, "dev-1", "100")
    user_bill(conn, "dev-2", "100")
    budget(conn, "b-lower", "user", "dev-1", 5, user_login="dev-1")
    budget(conn, "b-mixed", "user", "Dev-1", 5, user_login="Dev-1")
    assert consumed(conn) == {"b-lower": Decimal("4"), "b-mixed": Decimal("4")}


def test_a_budget_naming_a_cost_center_counts_the_active_one_not_a_deleted_one_of_the_same_name(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    # docs/bi.md: by name, the active cost center of that name (a deleted one's usage never counts
    # under it); the deleted one only when no active cost center has the name; by id, that one.
    bill(conn, "17")
    center_bill(conn, "cc-1", "10")
    center_bill(conn, "cc-old", "5")
    center_bill(conn, "cc-gone", "2")
    cost_center(conn, "cc-1", "Platform", [], snapshot=DAY)
    for cid, name in (("cc-old", "Platform"), ("cc-gone", "Legacy")):
        cost_center(conn, cid, name, [], snapshot=DAY)
        conn.execute("UPDATE billing.cost_centers SET state = 'deleted' WHERE cost_center_id = ?", [cid])
    budget(conn, "b-name", "cost_center", "Platform", 50)
    budget(conn, "b-old-id", "cost_center", "cc-old", 50)
    budget(conn, "b-deleted-name", "cost_center", "Legacy", 50)
    assert consumed(conn) == {"b-name": Decimal("10"), "b-old-id": Decimal("5"), "b-deleted-name": Decimal("2")}


def test_a_user_resource_names_its_user_whatever_the_case_of_the_login(conn: duckdb.DuckDBPyConnection) -> None:
    # A cost center listing `DEV-1` charges the teams of dev-1 of the reports.
    bill(conn, "10")
    center_bill(conn, "cc", "10")
    cost_center(conn, "cc", "Web", [("User", "DEV-1")], snapshot=DAY)
    user_day(conn, 1, "1")
    on_team(conn, 1, 1, "web")
    derive(conn)
    assert chargeback(conn) == {("web", "cost center"): Decimal("10")}


def test_the_unallocated_reason_of_an_organization_s_credit_names_no_cost_centers(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    # An organization has no cost centers: its day's credit (a refund) is charged to no team, and
    # the reason says so, not that cost centers add up to more than the bill.
    bill(conn, "-1", scope="organization", scope_name=ORG)
    for user in (1, 2, 3):
        user_day(conn, user, "1", scope="organization", scope_name=ORG)
        on_team(conn, user, user, f"t{user}", scope="organization", scope_name=ORG)
    derive(conn)
    ((reason, net),) = conn.execute(
        "SELECT reason, net_amount FROM bi.chargeback_by_team WHERE scope = 'organization'"
    ).fetchall()
    assert net == Decimal("-1")
    assert reason == "a credit (negative net) in no cost center is charged to no team: nothing to allocate a refund by"


def test_a_cost_center_missing_from_the_newest_snapshot_is_charged_by_no_older_snapshot_s_resources(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    # docs/bi.md: a cost center's teams come "from its resources on the newest snapshot". cc is on
    # the day before's, with team a; the newest lists only cc-2, with no resources at all.
    bill(conn, "10")
    center_bill(conn, "cc", "10")
    cost_center(conn, "cc", "Web", [("Team", "a")], snapshot=DAY - timedelta(days=1))
    cost_center(conn, "cc-2", "Other", [], snapshot=DAY)
    user_day(conn, 1, "1")
    on_team(conn, 1, 1, "a")
    derive(conn)
    rows = conn.execute("SELECT team, rule, reason, net_amount FROM bi.chargeback_by_team").fetchall()
    assert rows == [
        (
            "unallocated",
            "unallocated",
            "cost center cc: not on the newest snapshot of cost centers, so no resources to charge teams by",
            Decimal("10"),
        )
    ]


def test_the_credit_reconciliation_pairs_a_user_s_billed_and_reported_credits_whatever_the_spelling(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    # The report says dev-1; the export spells the same user DEV-1 on some lines: one user, one row.
    user_day(conn, 1, "100")
    derive(conn)
    user_bill(conn, "DEV-1", "60")
    user_bill(conn, "dev-1", "41.9")
    rows = conn.execute(
        "SELECT user_login, reported_credits, billed_credits, call FROM bi.credit_reconciliation"
    ).fetchall()
    assert rows == [("dev-1", Decimal("100"), Decimal("101.9"), "agrees")]
