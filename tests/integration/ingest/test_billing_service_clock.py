"""Whether a billed month is closed is the service's word, never this machine's (docs/billing.md,
"When"): a month closing between two calls of one run is fetched again, and answers without a
usable `Date` leave every month open and ask for no day the service may not have yet.
Over loopback, through a proxy (tests/integration/ingest/_billing_proxy.py)."""

from __future__ import annotations

from datetime import date
from decimal import Decimal

import duckdb
import httpx
import pytest

from pipelines._clock import utc_today
from tests.integration.ingest._billing_proxy import Change, Proxy, proxied

OCTOBER = date(2026, 10, 1)


def _same_answer(request: httpx.Request, answer: httpx.Response) -> httpx.Response:
    return answer


def _landed_october(conn: duckdb.DuckDBPyConnection) -> Decimal:
    (net,) = conn.execute(  # type: ignore[misc]
        "SELECT sum(net_amount) FROM billing.credit_usage WHERE day BETWEEN DATE '2026-10-01' AND DATE '2026-10-31'"
    ).fetchone()
    return Decimal(net)


def _billed_october(proxy: Proxy) -> Decimal:
    bill = proxy.bill(OCTOBER)
    assert bill["month_closed"] is True
    return Decimal(bill["total"]["net_amount"])


def test_a_month_closing_between_two_calls_of_one_run_still_lands_its_final_bill(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    with proxied(date(2026, 11, 3)) as proxy:
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


def _dateless(header: str | None, asked: list[tuple[int, int]]) -> Change:
    """Answers without a usable Date (none, or `header`), noting each usage day asked (month, day)."""

    def change(request: httpx.Request, answer: httpx.Response) -> httpx.Response:
        q = request.url.params
        if "day" in q:
            asked.append((int(q["month"]), int(q["day"])))
        headers = {k: v for k, v in answer.headers.items() if k.lower() != "date"}
        if header is not None:
            headers["date"] = header
        return httpx.Response(answer.status_code, headers=headers, content=answer.content)

    return change


@pytest.mark.parametrize("date_header", [None, "not a date"])
def test_a_month_the_service_has_not_closed_is_not_landed_closed_when_its_date_is_missing(
    conn: duckdb.DuckDBPyConnection, date_header: str | None
) -> None:
    assert utc_today() > date(2026, 11, 4), "this machine's day must be past October's close"
    with proxied(date(2026, 11, 3)) as proxy:
        asked: list[tuple[int, int]] = []
        proxy.change = _dateless(date_header, asked)
        proxy.ingest(conn, months=2)
        assert asked == [], "days asked with no day of the service known"
        (line,) = proxy.said
        assert line.startswith("billing: the service's answers carry no usable Date header")

        proxy.change = _same_answer
        proxy.set_today(date(2026, 11, 5))  # the service closed October; an honest run follows
        proxy.ingest(conn, months=2)
        assert _landed_october(conn) == _billed_october(proxy)


def test_without_the_services_date_a_run_asks_no_day_past_the_newest_it_knows_and_keeps_the_month_open(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    with proxied(date(2026, 11, 2)) as proxy:
        proxy.ingest(conn, months=2)  # knows the service has November 2nd
        proxy.set_today(date(2026, 11, 4))
        asked: list[tuple[int, int]] = []
        proxy.change = _dateless(None, asked)
        proxy.ingest(conn, months=2)
        assert max(asked) == (11, 2), "asked for days the service was not known to have"
        assert proxy.said == [
            "billing: the service's answers carry no usable Date header (does a proxy remove it?): days asked up to "
            "2026-11-02, the newest it is known to have, every month landed open (asked again)"
        ]
        (closed,) = conn.execute(  # type: ignore[misc]
            "SELECT bool_or(month_closed) FROM billing.credit_usage WHERE day < DATE '2026-11-01'"
        ).fetchone()
        assert closed is False, "October landed closed on no word of the service"

        proxy.change = _same_answer
        proxy.set_today(date(2026, 11, 5))
        proxy.ingest(conn, months=2)
        assert _landed_october(conn) == _billed_october(proxy)
