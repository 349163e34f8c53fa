"""The budget alert: a warning check after each publish, on while a budget of the newest month is
projected over its amount (bi.budget_burn), told once when it turns on and once when it clears."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import dagster as dg
import duckdb
import pytest

from pipelines.config import Settings
from pipelines.definitions import build_definitions
from pipelines.defs.serving.budgets import BUDGET_CHECK
from pipelines.warehouse import migrate
from pipelines.warehouse.checks import run_checks
from tests._alerts import webhook_server
from tests._cost import ENTERPRISE, build_cost_views, set_budget

UI = "https://dagster.example.org"
MONTH = date(2026, 11, 1)


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


@pytest.fixture
def hook(monkeypatch):
    with webhook_server() as hook:
        monkeypatch.setenv("METRICS_ALERTS", hook.url)
        monkeypatch.setenv("DAGSTER_WEBSERVER_URL", UI)
        yield hook


def _bill_and_budget(warehouse: str, amount: int) -> None:
    """The enterprise's bill of MONTH's first ten days, $10 a day (projected $300 at its end), and
    one budget of `amount` dollars on it, as a billing run lands them (the newest snapshot)."""
    with duckdb.connect(warehouse) as conn:
        migrate(conn)
        conn.execute("DELETE FROM billing.credit_usage")
        conn.execute("DELETE FROM billing.budgets")
        for n in range(10):
            conn.execute(
                "INSERT INTO billing.credit_usage BY NAME SELECT 'enterprise' AS scope, ? AS scope_name, ? AS day,"
                " 'ai_credit' AS meter, 'copilot' AS product, 'copilot_ai_credit' AS sku, 'GPT-5.2' AS model,"
                " 10 AS net_amount, 10 AS gross_amount, 0 AS discount_amount, FALSE AS month_closed,"
                " now() AS fetched_at",
                [ENTERPRISE, MONTH + timedelta(days=n)],
            )
        conn.execute(
            "INSERT INTO billing.budgets BY NAME SELECT ? AS snapshot_day, ? AS enterprise, 'b-1' AS budget_id,"
            " 'BundlePricing' AS budget_type, ? AS budget_amount, TRUE AS prevent_further_usage,"
            " 'enterprise' AS budget_scope, ? AS budget_entity_name, 'ai_credits' AS budget_product_sku,"
            " now() AS fetched_at",
            [datetime.now(UTC).date(), ENTERPRISE, amount, ENTERPRISE],
        )


def _warning_tick(defs: dg.Definitions, instance: dg.DagsterInstance, cursor: str | None) -> str | None:
    context = dg.build_sensor_context(instance=instance, cursor=cursor, repository_def=defs.get_repository_def())
    return defs.resolve_sensor_def("warning_alert_sensor")(context).cursor


def test_a_budget_projected_over_is_told_once_when_it_turns_on_and_once_when_it_clears(
    pipeline_env, instance, hook, monkeypatch
):
    monkeypatch.setenv("BILLING_MONTHS", "0")  # the bill is landed here, not fetched
    defs = build_definitions(Settings.from_env())
    publish = defs.resolve_job_def("serving_publish_job")
    cursor = _warning_tick(defs, instance, None)  # a first tick starts from now
    counts = []
    for amount in (200, 200, 400, 400, 250):  # over, still over, within, still within, over again
        _bill_and_budget(pipeline_env["WAREHOUSE_PATH"], amount)
        assert publish.execute_in_process(instance=instance).success
        cursor = _warning_tick(defs, instance, cursor)
        counts.append(len(hook.texts))
    assert counts == [1, 1, 2, 2, 3], hook.texts
    assert [text.split("\n")[0] for text in hook.texts] == [
        "metrics-etl warning: budgets_within_their_amounts on serving/warehouse_copy turned on",
        "metrics-etl: budgets_within_their_amounts on serving/warehouse_copy cleared",
        "metrics-etl warning: budgets_within_their_amounts on serving/warehouse_copy turned on",
    ]
    first = hook.texts[0]
    assert (
        f"found: {ENTERPRISE} enterprise {ENTERPRISE} ai_credits: $300.00 projected at month end against $200.00"
        in first
    )
    assert first.split("\n")[-1].startswith(f"{UI}/runs/")
