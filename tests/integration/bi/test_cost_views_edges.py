"""The cost views at their edges, on bills written by hand (the helpers of test_cost_views.py):
logins in any spelling (the service's are case-insensitive: one person), cost centers deleted or
gone from the newest snapshot, and what an unallocated reason says."""

from __future__ import annotations

from decimal import Decimal

import duckdb

from tests.integration.bi.test_cost_views import DAY, bill, budget, center_bill, conn, cost_center, user_bill, warehouse

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
