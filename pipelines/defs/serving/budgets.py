"""The budget alert: a warning check on the serving database, evaluated after each publish, that
turns on while a budget of an enterprise's newest month is projected to end it over its amount
(bi.budget_burn.projected_over). Like every warning check it is told by the alert machinery
(pipelines/defs/alerts.py) once when it turns on and once when it clears."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from pipelines.defs._checks import check_results
from pipelines.defs.resources import WarehouseResource
from pipelines.defs.serving.assets import SERVING
from pipelines.warehouse.checks import Check, run_checks

__all__ = ["BUDGET_CHECK", "budgets_within_their_amounts"]

BUDGET_CHECK = Check(
    "budgets_within_their_amounts",
    ("serving", "warehouse_copy"),
    Path(__file__).parent / "sql" / "count_budgets_projected_over.sql",
    "No budget of an enterprise's newest month is projected to exceed its amount by the month's end "
    "(bi.budget_burn): a budget that is, is named with its projection (a user's budget counted, never named).",
    blocking=False,
)


@dg.asset_check(asset=SERVING, name=BUDGET_CHECK.name, blocking=False, description=BUDGET_CHECK.description)
def budgets_within_their_amounts(warehouse: WarehouseResource) -> dg.AssetCheckResult:
    with warehouse.get_connection() as conn:
        outcomes = run_checks(conn, (BUDGET_CHECK,))
    (result,) = check_results((BUDGET_CHECK,), outcomes)
    return result
