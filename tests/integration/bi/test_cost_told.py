"""The Cost section of the run summary and of the page over the real billing views, from a bill
landed as a run lands it and published (the world of test_aggregate_tier_cost.py): the scopes'
net is the bill to the cent, the cost centers and teams add up to it."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import duckdb
import pytest

from pipelines.bi import cost_lines, money
from pipelines.page._cost import cost_section
from tests.integration.bi.test_aggregate_tier_cost import DAYS, USERS, _publish, net, template

__all__ = ["template"]  # the migrated warehouse the world is landed in (a fixture)


@pytest.fixture(scope="module")
def serving(template, tmp_path_factory) -> Path:
    return _publish(template, tmp_path_factory.mktemp("cost-told") / "world")


def test_the_summary_says_each_scope_s_bill_and_its_cost_centers_to_the_cent(serving):
    with duckdb.connect(str(serving.with_name("warehouse.duckdb")), read_only=True) as conn:
        lines = cost_lines(conn, command="metrics-etl").splitlines()
    bill = sum(net(u, d) for u in USERS for d in DAYS)
    for scope in ("enterprise ent", "organization o0"):
        (headline,) = [line for line in lines if line.startswith(f"cost, {scope}, ")]
        assert f"only 3 days of billing data): {money(bill)} net" in headline
        assert headline.endswith("; nothing earlier to compare with")
    alpha, bravo = (sum(net(u, d) for u in users for d in DAYS) for users in ((1, 2, 3), (4, 5)))
    rest = bill - alpha - bravo
    (centers,) = [line for line in lines if line.startswith("  cost centers")]
    assert centers == (
        f"  cost centers (2), the most first: Bravo {money(bravo)}, Alpha {money(alpha)}; "
        f"in no cost center {money(rest)}"
    )


def test_the_page_s_cost_tables_add_up_to_the_bill_from_the_serving_database(serving):
    with duckdb.connect(str(serving), read_only=True) as conn:
        section = cost_section(conn)
    bill = sum(net(u, d) for u in USERS for d in DAYS)
    assert re.findall(r'<tr class="cost-row" data-scope="([^"]+)" data-net="([^"]+)">', section) == [
        ("enterprise ent", f"{bill:.2f}"),
        ("organization o0", f"{bill:.2f}"),
    ]
    for css in ("cost-center", "cost-team"):
        cells = re.findall(rf'<tr class="{css}"[^>]*>.*?<td class="num"[^>]*>(-?)\$([\d,.]+)</td>', section, re.S)
        total = sum(Decimal(amount.replace(",", "")) * (-1 if sign else 1) for sign, amount in cells)
        # Each row is rounded to the cent: the sum is the bill's within half a cent a row.
        assert abs(total - bill * (1 if css == "cost-center" else 2)) <= Decimal("0.005") * len(cells), css
