"""The run summary's Cost section, on billing views of known figures (tests/_cost.py)."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import duckdb
import pytest

from pipelines.bi._cost import cost_lines, money
from tests._cost import ENTERPRISE, LAST_DAY, build_cost_views, enterprise_net, organization_net, set_budget


@pytest.fixture
def conn():
    with duckdb.connect() as conn:
        build_cost_views(conn)
        yield conn


def _lines(conn: duckdb.DuckDBPyConnection) -> list[str]:
    return cost_lines(conn, command="metrics-etl").splitlines()


def test_the_headline_is_the_newest_28_days_net_to_the_cent_and_its_change_called_by_the_one_rule(conn):
    newer = [LAST_DAY - timedelta(days=n) for n in range(28)]
    older = [LAST_DAY - timedelta(days=n) for n in range(28, 56)]
    net = sum(enterprise_net(d) for d in newer)
    (headline,) = [line for line in _lines(conn) if line.startswith(f"cost, enterprise {ENTERPRISE}")]
    assert headline.startswith(
        f"cost, enterprise {ENTERPRISE}, last 28 days with billing data ({newer[-1]} .. {LAST_DAY}): "
        f"{money(net)} net ({money(net * Decimal('1.2'))} gross less {money(net * Decimal('0.2'))} included in seats)"
    )
    rate, before = float(net) / 28, float(sum(enterprise_net(d) for d in older)) / 28
    assert f"{rate:,.1f} dollars a day against {before:,.1f} in the 28 days before: grown 50% (95% interval" in headline
    # November is open in the fixture: its days may still grow, and the line says how many.
    assert "24 days of a month the service has not closed may still grow" in headline


def test_a_steady_cost_is_called_steady_within_the_noise_never_grown_or_shrunk(conn):
    (headline,) = [line for line in _lines(conn) if line.startswith("cost, organization acme,")]
    net = sum(organization_net(LAST_DAY - timedelta(days=n)) for n in range(28))
    assert f"{money(net)} net" in headline
    assert ": steady (" in headline and "within the day-to-day noise" in headline


def test_too_few_days_of_billing_make_no_comparison_and_say_why(conn):
    conn.execute("DELETE FROM bi.cost_daily WHERE day < ?", [LAST_DAY - timedelta(days=30)])
    (headline,) = [line for line in _lines(conn) if line.startswith(f"cost, enterprise {ENTERPRISE}")]
    assert headline.endswith("; no comparison: 28 and 3 days of billing data (fewer than 14)")


def test_the_cost_centers_and_teams_charged_most_come_first_and_what_is_in_none_or_unallocated_last(conn):
    lines = _lines(conn)
    centers = next(line for line in lines if line.startswith("  cost centers"))
    newer = [LAST_DAY - timedelta(days=n) for n in range(28)]
    platform = sum(enterprise_net(d) * Decimal("0.5") for d in newer)
    rest = sum(enterprise_net(d) * Decimal("0.1") for d in newer)
    assert centers.startswith(f"  cost centers (3), the most first: Platform {money(platform)}, Web ")
    assert centers.endswith(f"; in no cost center {money(rest)}")
    teams = next(line for line in lines if line.startswith("  charged back to teams"))
    assert teams.index("platform") < teams.index("web") < teams.index("mobile") < teams.index("unallocated")
    assert f"unallocated {money(rest)} (users on no team)" in teams


def test_a_budget_projected_over_is_named_with_its_burn_and_blocked_users(conn):
    lines = _lines(conn)
    at = lines.index(f"  budgets of enterprise {ENTERPRISE}, 2026-11: 1 of 3 projected over at month end:")
    assert lines[at + 1] == (
        "    cost center Platform copilot_ai_credit: $1,800.00 to date, $2,250.00 projected against $1,500.00; "
        "stops usage at the budget, 3 users blocked"
    )


def test_with_no_budget_projected_over_the_nearest_is_named(conn):
    set_budget(conn, "b-cc1", "cost_center", "Platform", *(Decimal(n) for n in (1500, 700, 900)), False, True, 0)
    (line,) = [line for line in _lines(conn) if line.startswith("  budgets of")]
    assert line == (
        f"  budgets of enterprise {ENTERPRISE}, 2026-11: 0 of 3 projected over at month end; the nearest, cost "
        "center Platform copilot_ai_credit: $700.00 to date, $900.00 projected against $1,500.00; stops usage at the "
        "budget"
    )


def test_a_scope_whose_billing_was_refused_gets_one_line_saying_what_is_missing_and_why(conn):
    refused = [line for line in _lines(conn) if "acme-widgets" in line]
    assert refused == [
        "cost of organization acme-widgets: not read, the service refused this token its billing (ai_credit_usage, "
        'usage_summary; last asked 2026-11-25 06:00 UTC, it said "Resource not accessible by integration"): it needs '
        "an organization owner or billing manager, or an "
        "app with billing read; everything else of organization acme-widgets landed (`metrics-etl check` says it "
        "per scope)"
    ]


def test_a_scope_read_again_after_a_refusal_is_no_longer_said_to_be_refused(conn):
    conn.execute(
        "INSERT INTO billing.fetches SELECT scope, scope_name, endpoint, day, fetched_at + INTERVAL 1 DAY, FALSE, "
        "'ok', 1, 3, NULL FROM billing.fetches WHERE status = 'denied'"
    )
    assert not [line for line in _lines(conn) if "refused" in line]


def test_no_billing_at_all_adds_nothing_to_the_summary(conn):
    for table in ("bi.cost_daily", "bi.cost_by_cost_center", "bi.chargeback_by_team", "bi.budget_burn"):
        conn.execute(f"DELETE FROM {table}")
    conn.execute("DELETE FROM billing.fetches WHERE status = 'denied'")
    assert cost_lines(conn, command="metrics-etl") == ""


def test_money_is_said_to_the_cent_with_its_sign():
    assert money(Decimal("1234.5")) == "$1,234.50"
    assert money(Decimal("-3")) == "-$3.00"
    assert money(None) == "—"


def test_an_unallocated_rest_of_rounding_alone_is_not_said(conn):
    conn.execute("UPDATE bi.chargeback_by_team SET net_amount = 0.000001 WHERE team_id IS NULL")
    teams = next(line for line in _lines(conn) if line.startswith("  charged back to teams"))
    assert "unallocated" not in teams
