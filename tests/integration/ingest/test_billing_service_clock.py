"""Whether a billed month is closed is the service's word, never this machine's (docs/billing.md,
"When"): a month closing between two calls of one run is fetched again, and answers without a
usable `Date` leave every month open and ask for no day the service may not have yet.
Over loopback, through a proxy (tests/integration/ingest/_billing_proxy.py)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import duckdb
import httpx

from tests.integration.ingest._billing_proxy import Proxy, proxied

OCTOBER = date(2026, 10, 1)


def _landed_october(conn: duckdb.DuckDBPyConnection) -> Decimal:
    (net,) = conn.execute(  # type: ignore[misc]
        "SELECT sum(net_amount) FROM billing.credit_usage WHERE day BETWEEN DATE '2026-10-01' AND DATE '2026-10-31'"
    ).fetchone()
    return Decimal(net)


def _billed_october(proxy: Proxy) -> Decimal:
    bill = proxy.bill(OCTOBER)
    assert bill["month_closed"] is True
    return Decimal(bill["total"]["net_amount"])


def test_a_month_closing_between_two_calls_of_one_run_still_lands_its_final_bill() -> None:
    with proxied(date(2026, 11, 3)) as (proxy, conn):
        october_calls = 0

        def midnight_after_half_of_october(request: httpx.Request, answer: httpx.Response) -> httpx.Response:
            nonlocal october_calls
            q = request.url.params
            if "ai_credit/usage" in request.url.path and q.get("month") == "10" and "cost_center_id" not in q:
                october_calls += 1
                if october_calls == 15:  # the 16th day is asked for after the service's midnight
                    proxy.set_today(date(2026, 11, 4))
            return answer

        proxy.change = midnight_after_half_of_october
        proxy.ingest(conn, months=2)
        proxy.set_today(date(2026, 11, 5))
        proxy.ingest(conn, months=2)  # the next day's run

        assert _landed_october(conn) == _billed_october(proxy), "October's provisional first half kept for good"
