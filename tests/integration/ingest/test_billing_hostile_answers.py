"""Hostile billed-usage answers over loopback (docs/billing.md, "What an answer may hold"): one
day's AI-credit answer of the enterprise (2026-11-10) rewritten by the proxy
(tests/integration/ingest/_billing_proxy.py). Nothing sent is lost or doubled silently, and the
run never stops for it: the other days and tables land."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from decimal import Decimal
from typing import Any

import duckdb
import httpx

from pipelines.ingest.billing import BillingResult
from tests.integration.ingest._billing_proxy import Proxy, proxied

DAY = date(2026, 11, 10)
HAIKU = 1  # the day's 'Auto: Claude Haiku 4.5' chat item (net 0.1833)


def _run(
    conn: duckdb.DuckDBPyConnection, rewrite: Callable[[list[dict[str, Any]]], None]
) -> tuple[Proxy, BillingResult, str]:
    """One run of November with the day's answer's items rewritten; what was sent for that day."""
    sent: list[str] = []

    def change(request: httpx.Request, answer: httpx.Response) -> httpx.Response:
        q = request.url.params
        if "ai_credit/usage" in request.url.path and q.get("day") == str(DAY.day) and "cost_center_id" not in q:
            body = answer.json()
            rewrite(body["usageItems"])
            sent.append(json.dumps(body))
            headers = {k: v for k, v in answer.headers.items() if k.lower() != "etag"}
            return httpx.Response(200, headers=headers, content=sent[-1].encode())
        return answer

    with proxied(date(2026, 11, 20)) as proxy:
        proxy.change = change
        result = proxy.ingest(conn, months=1)
        return proxy, result, sent[-1]


def _day(conn: duckdb.DuckDBPyConnection, column: str = "net_amount") -> Decimal:
    (total,) = conn.execute(  # type: ignore[misc]
        f"SELECT sum({column}) FROM billing.credit_usage WHERE day = ?", [DAY]
    ).fetchone()
    return Decimal(total)


def _sent(sent: str, field: str = "netAmount") -> Decimal:
    items = json.loads(sent, parse_float=Decimal)["usageItems"]
    return sum((Decimal(str(item[field])) for item in items), Decimal(0))


def _haiku(conn: duckdb.DuckDBPyConnection) -> tuple[Any, ...]:
    row = conn.execute(
        "SELECT net_amount, extra, month_closed FROM billing.credit_usage WHERE day = ? AND model = ?",
        [DAY, "Auto: Claude Haiku 4.5"],
    ).fetchone()
    assert row is not None
    return tuple(row)


def _drift(conn: duckdb.DuckDBPyConnection) -> set[tuple[Any, ...]]:
    return set(conn.execute("SELECT report_kind, day, path, drift FROM raw.field_drift").fetchall())


def _other_tables_landed(conn: duckdb.DuckDBPyConnection) -> None:
    for name in ("cost_center_usage", "usage_summary", "product_usage"):
        (rows,) = conn.execute(f"SELECT count(*) FROM billing.{name}").fetchone()  # type: ignore[misc]
        assert rows > 0, f"billing.{name} did not land"


def test_an_amount_of_15_digits_lands_exactly_not_as_null(conn: duckdb.DuckDBPyConnection) -> None:
    def huge(items: list[dict[str, Any]]) -> None:
        items[HAIKU]["netAmount"] = 123456789012345

    _, result, sent = _run(conn, huge)
    assert _haiku(conn)[0] == Decimal(123456789012345)
    assert _day(conn) == _sent(sent)
    _other_tables_landed(conn)
    assert result.months == 4
    for (view,) in conn.execute("SELECT view_name FROM duckdb_views() WHERE schema_name = 'bi'").fetchall():
        conn.execute(f"SELECT count(*) FROM bi.{view}").fetchall()  # no view's money type overflows on it


def test_an_amount_sent_as_a_decimal_string_is_that_number(conn: duckdb.DuckDBPyConnection) -> None:
    def string(items: list[dict[str, Any]]) -> None:
        items[HAIKU]["netAmount"] = "0.1833"

    _, _, sent = _run(conn, string)
    assert _haiku(conn)[:2] == (Decimal("0.1833"), None)
    assert _day(conn) == _sent(sent)
    assert not {d for d in _drift(conn) if d[3] != "undeclared"}


def test_an_amount_that_is_no_number_is_kept_in_extra_told_and_its_month_left_open(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    def text(items: list[dict[str, Any]]) -> None:
        items[HAIKU]["netAmount"] = "0.18 USD"

    _, result, _ = _run(conn, text)
    net, extra, closed = _haiku(conn)
    assert net is None and json.loads(extra) == {"netAmount": "0.18 USD"} and closed is False
    assert ("credit_usage", DAY, "usageItems[].netAmount", "mistyped") in _drift(conn)
    assert "credit_usage: usageItems[].netAmount (mistyped)" in result.drift
    (message,) = conn.execute(  # type: ignore[misc]
        "SELECT message FROM billing.fetches WHERE endpoint = 'credit_usage' AND day = ?", [DAY]
    ).fetchone()
    assert message == "1 amount kept in extra: no column holds it"


def test_a_duplicated_item_in_one_answer_neither_crashes_the_run_nor_loses_money(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    def dup(items: list[dict[str, Any]]) -> None:
        items.append(dict(items[HAIKU]))

    _, result, sent = _run(conn, dup)
    assert not result.refused
    assert _day(conn) == _sent(sent) and _day(conn, "gross_amount") == _sent(sent, "grossAmount")
    assert ("credit_usage", DAY, "usageItems[]", "repeated") in _drift(conn)
    _other_tables_landed(conn)


def test_a_negative_discount_lands_as_sent_and_is_told_naming_the_item_and_the_difference(
    conn: duckdb.DuckDBPyConnection,
) -> None:
    def negative(items: list[dict[str, Any]]) -> None:
        items[HAIKU]["discountAmount"] = -0.04

    proxy, _, sent = _run(conn, negative)
    assert _day(conn) == _sent(sent)
    assert ("credit_usage", DAY, "usageItems[].netAmount", "inconsistent") in _drift(conn)
    (line,) = [line for line in proxy.said if "gross - discount" in line]
    assert f"billing.credit_usage of enterprise {proxy.enterprise}: 1 item" in line
    assert "2026-11-10 assistant assistant_ai_credit Auto: Claude Haiku 4.5: gross_amount" in line
    assert "discount_amount -0.04 = 0.2635, net_amount 0.1833 (differs by -0.0802)" in line
