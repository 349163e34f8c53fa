"""The budget alert: a warning check after each publish, on while a budget of the newest month is
projected over its amount (bi.budget_burn), told once when it turns on and once when it clears."""

from __future__ import annotations

from decimal import Decimal

import duckdb

from pipelines.defs.serving.budgets import BUDGET_CHECK
from pipelines.warehouse.checks import run_checks
from tests._cost import ENTERPRISE, build_cost_views, set_budget


def test_the_check_names_each_budget_projected_over_and_counts_a_user_s_budget_without_naming_them():
    with duckdb.connect() as conn:
        build_cost_views(conn)
        set_budget(conn, "b-u7", "user", "dev-7", Decimal(50), Decimal(60), Decimal(80), True, True, 1)
        (outcome,) = run_checks(conn, (BUDGET_CHECK,))
        assert outcome.failures == 2
        assert outcome.detail == (
            f"{ENTERPRISE} cost center Platform copilot_ai_credit: $2,250.00 projected at month end against "
            f"$1,500.00, stops usage at it, 3 users blocked | {ENTERPRISE}: 1 user budget"
        )
        assert "dev-7" not in outcome.detail
        # Every budget back within its amount: the check passes.
        for budget_id in ("b-cc1", "b-u7"):
            conn.execute("UPDATE bi.budget_burn SET projected_over = FALSE WHERE budget_id = ?", [budget_id])
        (outcome,) = run_checks(conn, (BUDGET_CHECK,))
        assert (outcome.failures, outcome.detail) == (0, "")
