"""Billing views with known figures, in the columns the billing contract gives them (bi.cost_daily,
bi.cost_by_cost_center, bi.chargeback_by_team, bi.budget_burn, billing.fetches), for the tests of
what reads them: the run summary's and the page's Cost section and the budget alert.

Enterprise acme-corp: 56 days ending LAST_DAY, its net cost a day 100 dollars in the older 28
days and 150 in the newer (a change far beyond the day-to-day noise), gross 20% above net; three
cost centers and usage in none; teams charged back by cost center and by credit share, and an
unallocated rest; budgets, one projected over. Organization acme: the same days, steady.
Organization acme-widgets: its billing refused (403), nothing of it in the views.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from decimal import Decimal

import duckdb

from pipelines.warehouse.sql import run_sql

LAST_DAY = date(2026, 11, 24)
DAYS = 56
ENTERPRISE = "acme-corp"
# cost center id → (name, share of the enterprise's net a day); the rest is in none.
COST_CENTERS = {
    "cc-1": ("Platform", Decimal("0.5")),
    "cc-2": ("Web", Decimal("0.25")),
    "cc-3": ("Data", Decimal("0.15")),
}
# team id → (slug, rule, share of the enterprise's net a day); the rest is unallocated.
TEAMS = {
    11: ("platform", "cost center", Decimal("0.4")),
    12: ("web", "cost center", Decimal("0.3")),
    13: ("mobile", "credit share", Decimal("0.2")),
}
BUDGETS = (
    # id, scope, entity, amount, consumed to date, projected at month end, over, prevents usage, users blocked
    ("b-ent", "enterprise", ENTERPRISE, Decimal("10000"), Decimal("3600"), Decimal("4500"), False, False, 0),
    ("b-cc1", "cost_center", "Platform", Decimal("1500"), Decimal("1800"), Decimal("2250"), True, True, 3),
    ("b-cc2", "cost_center", "Web", Decimal("2000"), Decimal("900"), Decimal("1125"), False, False, 0),
)


def enterprise_net(day: date) -> Decimal:
    """The enterprise's net cost of `day`: 100 dollars in the older period, 150 in the newer, and
    a few cents' wobble so days differ."""
    older = (LAST_DAY - day).days >= 28
    return (Decimal("100") if older else Decimal("150")) + Decimal(day.day % 5) / 4


def organization_net(day: date) -> Decimal:
    return Decimal("40") + Decimal(day.day % 3)


_SCHEMA = """
CREATE SCHEMA IF NOT EXISTS bi;
CREATE SCHEMA IF NOT EXISTS billing;
CREATE TABLE bi.cost_daily (scope VARCHAR, scope_name VARCHAR, day DATE, meter VARCHAR, product VARCHAR, sku VARCHAR,
    model VARCHAR, unit_type VARCHAR, gross_quantity DECIMAL(18,6), gross_amount DECIMAL(18,6),
    discount_quantity DECIMAL(18,6), discount_amount DECIMAL(18,6), net_quantity DECIMAL(18,6),
    net_amount DECIMAL(18,6), month_closed BOOLEAN);
CREATE TABLE bi.cost_by_cost_center (scope VARCHAR, scope_name VARCHAR, day DATE, cost_center_id VARCHAR,
    cost_center_name VARCHAR, meter VARCHAR, product VARCHAR, sku VARCHAR, model VARCHAR, gross_amount DECIMAL(18,6),
    discount_amount DECIMAL(18,6), net_amount DECIMAL(18,6), net_quantity DECIMAL(18,6));
CREATE TABLE bi.chargeback_by_team (scope VARCHAR, scope_name VARCHAR, day DATE, team_id BIGINT, team VARCHAR,
    rule VARCHAR, reason VARCHAR, net_amount DECIMAL(18,6));
CREATE TABLE bi.budget_burn (enterprise VARCHAR, budget_id VARCHAR, budget_type VARCHAR, budget_scope VARCHAR,
    budget_entity_name VARCHAR, budget_product_sku VARCHAR, budget_amount DECIMAL(18,6), month DATE,
    consumed_to_date DECIMAL(18,6), projected_month_end DECIMAL(18,6), projected_over BOOLEAN,
    prevent_further_usage BOOLEAN, users_blocked BIGINT);
CREATE TABLE billing.fetches (scope VARCHAR, scope_name VARCHAR, endpoint VARCHAR, day DATE,
    fetched_at TIMESTAMPTZ, month_closed BOOLEAN, status VARCHAR, calls BIGINT, "rows" BIGINT, message VARCHAR)
"""


def build_cost_views(conn: duckdb.DuckDBPyConnection) -> None:
    """The billing views' contract columns as tables, with the figures above, and the change rule."""
    conn.execute("CREATE SCHEMA IF NOT EXISTS bi")
    run_sql(conn, "views/_change_rule.sql")
    for statement in _SCHEMA.split(";"):
        conn.execute(statement)
    fetched = datetime(2026, 11, 25, 6, tzinfo=UTC)
    for n in range(DAYS):
        day = LAST_DAY - timedelta(days=n)
        closed = day < date(2026, 11, 1)
        for scope, name, net in (
            ("enterprise", ENTERPRISE, enterprise_net(day)),
            ("organization", "acme", organization_net(day)),
        ):
            # Two lines a day (two models), the net split 3:1: the views' sums, not one line, are read.
            for model, part in (("Claude Sonnet 4.5", net * 3 / 4), ("GPT-5.2", net / 4)):
                gross = part * Decimal("1.2")
                conn.execute(
                    "INSERT INTO bi.cost_daily VALUES (?, ?, ?, 'ai_credit', 'copilot', 'copilot_ai_credit', ?, "
                    "'ai-credits', ?, ?, ?, ?, ?, ?, ?)",
                    [
                        scope,
                        name,
                        day,
                        model,
                        gross * 100,
                        gross,
                        (gross - part) * 100,
                        gross - part,
                        part * 100,
                        part,
                        closed,
                    ],
                )
            conn.execute(
                "INSERT INTO billing.fetches VALUES (?, ?, 'ai_credit_usage', ?, ?, ?, 'ok', 1, 2, NULL)",
                [scope, name, day, fetched, closed],
            )
        net = enterprise_net(day)
        placed = Decimal(0)
        for cid, (cname, share) in COST_CENTERS.items():
            conn.execute(
                "INSERT INTO bi.cost_by_cost_center VALUES ('enterprise', ?, ?, ?, ?, 'ai_credit', 'copilot', "
                "'copilot_ai_credit', 'Claude Sonnet 4.5', ?, 0, ?, ?)",
                [ENTERPRISE, day, cid, cname, net * share, net * share, net * share * 100],
            )
            placed += net * share
        conn.execute(
            "INSERT INTO bi.cost_by_cost_center VALUES ('enterprise', ?, ?, 'none', NULL, 'ai_credit', 'copilot', "
            "'copilot_ai_credit', 'Claude Sonnet 4.5', ?, 0, ?, ?)",
            [ENTERPRISE, day, net - placed, net - placed, (net - placed) * 100],
        )
        allocated = Decimal(0)
        for team_id, (slug, rule, share) in TEAMS.items():
            conn.execute(
                "INSERT INTO bi.chargeback_by_team VALUES ('enterprise', ?, ?, ?, ?, ?, NULL, ?)",
                [ENTERPRISE, day, team_id, slug, rule, net * share],
            )
            allocated += net * share
        conn.execute(
            "INSERT INTO bi.chargeback_by_team VALUES ('enterprise', ?, ?, NULL, 'unallocated', 'unallocated', "
            "'users on no team', ?)",
            [ENTERPRISE, day, net - allocated],
        )
    conn.execute(
        "INSERT INTO billing.fetches VALUES ('organization', 'acme-widgets', 'ai_credit_usage', ?, ?, FALSE, 'denied', "
        "1, 0, 'Resource not accessible by integration'), ('organization', 'acme-widgets', 'usage_summary', ?, ?, "
        "FALSE, 'denied', 1, 0, 'Resource not accessible by integration')",
        [LAST_DAY, fetched, LAST_DAY, fetched],
    )
    for budget in BUDGETS:
        set_budget(conn, *budget)


def set_budget(
    conn: duckdb.DuckDBPyConnection,
    budget_id: str,
    scope: str,
    entity: str,
    amount: Decimal,
    consumed: Decimal,
    projected: Decimal,
    over: bool,
    prevent: bool,
    blocked: int,
) -> None:
    """The newest month's row of one budget, replaced."""
    conn.execute("DELETE FROM bi.budget_burn WHERE budget_id = ?", [budget_id])
    conn.execute(
        "INSERT INTO bi.budget_burn VALUES (?, ?, 'SkuPricing', ?, ?, 'copilot_ai_credit', ?, DATE '2026-11-01', ?, ?, "
        "?, ?, ?)",
        [ENTERPRISE, budget_id, scope, entity, amount, consumed, projected, over, prevent, blocked],
    )
