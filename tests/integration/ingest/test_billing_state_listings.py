"""Budget listings the service pages inconsistently, over loopback: a proxy transport between
run_billing_state and the emulator rewrites the budgets' pages. A page repeating an earlier
page's budgets, or pages repeating for ever under a huge total_count, refuse the listing (one
line, `failed` in billing.fetches) at the first repeat: the day keeps the enterprise's budgets
and user states as they were, its cost centers and the organization's seat breakdown land."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import duckdb
import httpx

from emulator import EmulatorConfig, running_emulator
from pipelines.ingest.billing_state import StateResult, run_billing_state
from pipelines.service import ServiceClient
from tests._emulator import settings_for

from .conftest import FAST_RETRY, TODAY

Pages = Callable[[dict[str, Any], int], dict[str, Any]]


def _state(conn: duckdb.DuckDBPyConnection, pages: Pages | None = None) -> tuple[StateResult, int]:
    """The day's state through a proxy answering each budgets page with `pages(page 1, page)`;
    how many budgets pages were asked for."""
    with running_emulator(EmulatorConfig(seed=7, users=40, repos=2, today=TODAY)) as emu:
        upstream = httpx.Client(base_url=emu.base_url)
        asked = [0]

        def handler(request: httpx.Request) -> httpx.Response:
            if pages is not None and request.url.path.endswith("/budgets"):
                asked[0] += 1
                query = {**request.url.params, "page": "1"}
                first = upstream.get(request.url.path, params=query, headers=request.headers).json()
                return httpx.Response(200, json=pages(first, int(request.url.params["page"])))
            answer = upstream.send(
                upstream.build_request(request.method, request.url, headers=request.headers, content=request.content)
            )
            kept = {k: v for k, v in answer.headers.items() if k.lower() not in ("content-length", "content-encoding")}
            return httpx.Response(answer.status_code, headers=kept, content=answer.content)

        config = settings_for(emu).service_config()
        with ServiceClient(config=config, transport=httpx.MockTransport(handler), retry=FAST_RETRY) as client:
            creds = emu.credentials
            result = run_billing_state(
                client, conn, enterprises=(creds["enterprise"],), orgs=(creds["org"],), day=TODAY
            )
        upstream.close()
    return result, asked[0]


def _rows(conn: duckdb.DuckDBPyConnection, table: str) -> list[tuple[Any, ...]]:
    return conn.sql(f"SELECT * FROM {table} ORDER BY ALL").fetchall()


def _last_fetches(conn: duckdb.DuckDBPyConnection) -> list[tuple[Any, ...]]:
    query = (
        "SELECT scope, status, message FROM billing.fetches WHERE endpoint = 'billing_state'"
        " AND fetched_at = (SELECT max(fetched_at) FROM billing.fetches) ORDER BY scope"
    )
    return conn.sql(query).fetchall()


def test_a_page_repeating_the_first_page_s_budgets_is_refused_and_the_rest_of_the_day_lands(conn):
    _state(conn)
    budgets, states = _rows(conn, "billing.budgets"), _rows(conn, "billing.budget_user_states")
    assert budgets and states
    conn.execute("DELETE FROM billing.cost_centers")
    conn.execute("DELETE FROM billing.seat_breakdown")

    # Page 2 answers page 1's budgets again; total_count counts both pages, honestly for 2n items.
    def repeat(first: dict[str, Any], page: int) -> dict[str, Any]:
        return first | {"total_count": 2 * len(first["budgets"]), "has_next_page": page == 1}

    result, _ = _state(conn, repeat)
    assert [refused.line() for refused in result.refused] == [
        "billing state of enterprise 'acme-corp': its budgets refused (GET /enterprises/acme-corp/billing/budgets: "
        f"page 2 repeats id {budgets[0][2]!r} of an earlier page); its rows of the day in billing.budgets and "
        "billing.budget_user_states stay as they were, the rest of its state landed; the next run asks again"
    ]
    assert (_rows(conn, "billing.budgets"), _rows(conn, "billing.budget_user_states")) == (budgets, states)
    assert _rows(conn, "billing.cost_centers") and len(_rows(conn, "billing.seat_breakdown")) == 1
    assert _last_fetches(conn) == [("enterprise", "failed", result.refused[0].message), ("organization", "ok", None)]


def test_pages_repeating_for_ever_under_a_huge_total_count_are_refused_at_the_first_repeat(conn):
    def loop(first: dict[str, Any], page: int) -> dict[str, Any]:
        return first | {"total_count": 10**9, "has_next_page": True}

    result, asked = _state(conn, loop)
    assert asked == 2
    assert [(refused.what, refused.status) for refused in result.refused] == [("budgets", None)]
    assert _rows(conn, "billing.budgets") == [] and _rows(conn, "billing.cost_centers")
