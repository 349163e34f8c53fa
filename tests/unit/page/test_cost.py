"""The page's Cost section, on billing views of known figures (tests/_cost.py): the same figures
as the run summary's, and, rendered by headless Chromium, its chart and tables really there."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import duckdb
import pytest

from pipelines.bi import money
from pipelines.page._cost import cost_section
from pipelines.page._document import page_document
from tests._cost import ENTERPRISE, LAST_DAY, build_cost_views, enterprise_net, organization_net
from tests.e2e.test_page_and_bi import _CHROMIUM, _dump_dom


@pytest.fixture(scope="module")
def section():
    with duckdb.connect() as conn:
        build_cost_views(conn)
        yield cost_section(conn)


def _newer() -> list:
    return [LAST_DAY - timedelta(days=n) for n in range(28)]


def test_each_scope_s_net_cost_is_the_bill_s_to_the_cent_with_the_one_rule_s_call(section):
    rows = dict(re.findall(r'<tr class="cost-row" data-scope="([^"]+)" data-net="([^"]+)">', section))
    assert rows == {
        f"enterprise {ENTERPRISE}": f"{sum(enterprise_net(d) for d in _newer()):.2f}",
        "organization acme": f"{sum(organization_net(d) for d in _newer()):.2f}",
    }
    calls = re.findall(r'<tr class="cost-row".*?data-call="([a-z]+)"', section, re.S)
    assert calls == ["grown", "steady"]


def test_the_cost_centers_and_teams_add_up_to_the_bill_and_show_none_and_unallocated(section):
    net = sum(enterprise_net(d) for d in _newer())
    for css in ("cost-center", "cost-team"):
        amounts = re.findall(rf'<tr class="{css}"[^>]*>.*?<td class="num"[^>]*>\$([\d,.]+)</td>', section, re.S)
        assert sum(Decimal(a.replace(",", "")) for a in amounts) == pytest.approx(net, abs=Decimal("0.05"))
    assert ">in no cost center<" in section
    assert re.search(r'data-team="unallocated"><td[^>]*>unallocated <span class="muted">\(users on no team\)', section)


def test_a_budget_projected_over_comes_first_and_is_marked(section):
    budgets = re.findall(r'<tr class="budget" data-budget-id="([^"]+)" data-over="([a-z]+)">', section)
    assert budgets[0] == ("b-cc1", "true") and sorted(over for _, over in budgets) == ["false", "false", "true"]
    assert "projected over</span>" in section and money(Decimal("2250")) in section


def test_a_refused_scope_is_said_on_the_page_in_the_summary_s_words(section):
    (said,) = re.findall(r'<p class="cost-refused" data-scope="organization acme-widgets">([^<]+)</p>', section)
    assert said.startswith("cost of organization acme-widgets: not read, the service refused this token its billing")


def test_no_billing_and_no_refusal_leave_no_cost_section():
    with duckdb.connect() as conn:
        build_cost_views(conn)
        for table in ("bi.cost_daily", "bi.cost_by_cost_center", "bi.chargeback_by_team", "bi.budget_burn"):
            conn.execute(f"DELETE FROM {table}")
        conn.execute("DELETE FROM billing.fetches")
        assert cost_section(conn) == ""


@pytest.mark.skipif(_CHROMIUM is None, reason="chromium is not installed (apt-get install chromium; .ci/run does)")
def test_chromium_renders_the_cost_chart_with_a_line_per_scope_and_the_open_month_amber(section, tmp_path):
    page = tmp_path / "cost.html"
    page.write_text(page_document(title="Cost", subtitle="test", body=section))
    dom = _dump_dom(page, tmp_path / "chromium-profile")
    cost = re.search(r'<section class="card" id="cost">(.*?)</section>', dom, re.S).group(1)
    assert re.findall(r'<polyline class="series" data-series="([^"]+)"', cost) == [
        f"enterprise {ENTERPRISE}",
        "organization acme",
    ]
    # November was not closed when fetched: its 24 days are amber, named in the legend.
    assert len(re.findall(r'<rect class="provisional"', cost)) == 24
    assert "a month not closed yet: may still grow" in cost
    # Each day's point says its net to the dollar: the newest day of the enterprise.
    assert f"enterprise {ENTERPRISE}, {LAST_DAY}: ${enterprise_net(LAST_DAY):,.0f}" in cost
    for heading in ("Cost centers of enterprise acme-corp", "Charged back to the teams of enterprise acme-corp"):
        assert heading in cost
