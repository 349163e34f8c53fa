"""The billed usage over loopback HTTP, in both dialects: a backfilled month lands to the cent of
the emulator's bill, per cost center plus `none` is the whole, an open month fetched again
replaces its rows while a closed one is not fetched again, a re-run changes nothing, and a token
without billing read lands the reports and says one line."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb
import httpx
import pytest

from emulator import EmulatorConfig, RunningEmulator, running_emulator
from pipelines.ingest import ingest_report
from pipelines.ingest.billing import ingest_billing
from pipelines.service import ReportRef, RetryPolicy, ServiceClient
from pipelines.warehouse import migrate
from tests._emulator import settings_for

TODAY = date(2026, 11, 20)  # October closed on November 4th; November open
FAST_RETRY = RetryPolicy(max_attempts=3, backoff_initial=0.01, backoff_max=0.05)
MONTHS = 2
_AMOUNTS = ("gross_quantity", "gross_amount", "discount_quantity", "discount_amount", "net_quantity", "net_amount")


@pytest.fixture(params=["github", "service"])
def dialect(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _emulator(dialect: Any, **given: Any) -> Iterator[RunningEmulator]:
    config: dict[str, Any] = {"seed": 7, "users": 30, "repos": 4, "today": TODAY} | given
    with running_emulator(EmulatorConfig(dialect=dialect, **config)) as emu:
        yield emu


@pytest.fixture
def emu(dialect: str) -> Iterator[RunningEmulator]:
    yield from _emulator(dialect)


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    c = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    migrate(c)
    yield c
    c.close()


def _scopes(emu: RunningEmulator) -> list[tuple[Any, str]]:
    return [("enterprise", emu.credentials["enterprise"]), ("organization", emu.credentials["org"])]


def _run(emu: RunningEmulator, conn: duckdb.DuckDBPyConnection, said: list[str] | None = None) -> Any:
    with ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as client:
        say = said.append if said is not None else (lambda line: None)
        return ingest_billing(client, conn, scopes=_scopes(emu), months=MONTHS, say=say)


def _bill(emu: RunningEmulator, scope: str, name: str, month: date) -> dict[str, Any]:
    answer = httpx.get(
        f"{emu.base_url}/_emulator/billing",
        params={"scope": scope, "name": name, "year": month.year, "month": month.month},
    )
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def _month_sums(conn: duckdb.DuckDBPyConnection, table: str, scope: str, name: str, month: date) -> tuple[Any, ...]:
    sums = ", ".join(f"sum({c})" for c in _AMOUNTS)
    row = conn.execute(
        f"SELECT {sums} FROM {table} WHERE scope = ? AND scope_name = ? AND date_trunc('month', day) = ?",
        [scope, name, month],
    ).fetchone()
    assert row is not None
    return tuple(row)


def test_a_backfilled_month_s_net_amount_is_the_emulator_s_bill_to_the_cent(
    emu: RunningEmulator, conn: duckdb.DuckDBPyConnection
) -> None:
    _run(emu, conn)
    for scope, name in _scopes(emu):
        for month in (date(2026, 10, 1), date(2026, 11, 1)):
            bill = _bill(emu, scope, name, month)
            _, gross, _, discount, _, net = (
                Decimal(0) if v is None else v for v in _month_sums(conn, "billing.credit_usage", scope, name, month)
            )
            assert net == Decimal(bill["total"]["net_amount"]), (scope, month)
            assert gross == Decimal(bill["total"]["gross_amount"]) and gross - discount == net
            assert net > 0


def test_per_cost_center_and_none_sum_to_the_unfiltered_answer_each_day(
    emu: RunningEmulator, conn: duckdb.DuckDBPyConnection
) -> None:
    _run(emu, conn)
    name = emu.credentials["enterprise"]
    sums = ", ".join(f"sum({c})" for c in _AMOUNTS)
    whole = conn.execute(
        f"SELECT day, meter, product, sku, model, {sums} FROM billing.credit_usage WHERE scope_name = ?"
        " GROUP BY ALL ORDER BY ALL",
        [name],
    ).fetchall()
    parts = conn.execute(
        f"SELECT day, meter, product, sku, model, {sums} FROM billing.cost_center_usage WHERE scope_name = ?"
        " GROUP BY ALL ORDER BY ALL",
        [name],
    ).fetchall()
    assert whole and parts == whole
    centers = {
        row[0] for row in conn.execute("SELECT DISTINCT cost_center_id FROM billing.cost_center_usage").fetchall()
    }
    assert "none" in centers and len(centers) >= 3


def test_an_open_month_fetched_again_replaces_its_rows_and_a_closed_month_is_not_fetched_again(
    emu: RunningEmulator, conn: duckdb.DuckDBPyConnection
) -> None:
    first = _run(emu, conn)
    closed_fetches = conn.execute(
        "SELECT endpoint, day, fetched_at FROM billing.fetches WHERE day < DATE '2026-11-01' ORDER BY ALL"
    ).fetchall()
    # Five days later: November's days answer more (late usage, and days since), October is closed.
    httpx.post(f"{emu.base_url}/_emulator/clock", json={"today": "2026-11-25"}).raise_for_status()
    second = _run(emu, conn)
    assert second.calls < first.calls / 1.5  # only November: its 25 days, not October's 31 again
    assert (
        conn.execute(
            "SELECT endpoint, day, fetched_at FROM billing.fetches WHERE day < DATE '2026-11-01' ORDER BY ALL"
        ).fetchall()
        == closed_fetches
    )
    for scope, name in _scopes(emu):
        november = date(2026, 11, 1)
        net = _month_sums(conn, "billing.credit_usage", scope, name, november)[5]
        assert net == Decimal(_bill(emu, scope, name, november)["total"]["net_amount"]), scope
    # One row per grain: the month's rows replaced, never added beside the earlier fetch's.
    doubled = conn.execute(
        "SELECT count(*) FROM (SELECT scope, scope_name, day, meter, product, sku, model FROM billing.credit_usage"
        " GROUP BY ALL HAVING count(*) > 1)"
    ).fetchone()
    assert doubled == (0,)
    # The days since landed too (today's usage is billed from tomorrow on).
    assert conn.execute("SELECT max(day) FROM billing.credit_usage").fetchone() == (date(2026, 11, 24),)


def test_running_again_changes_no_row(emu: RunningEmulator, conn: duckdb.DuckDBPyConnection) -> None:
    query = "SELECT * EXCLUDE (fetched_at) FROM {} ORDER BY ALL"
    tables = ("billing.credit_usage", "billing.cost_center_usage", "billing.usage_summary", "billing.product_usage")
    _run(emu, conn)
    before = {t: conn.execute(query.format(t)).fetchall() for t in tables}
    _run(emu, conn)
    assert {t: conn.execute(query.format(t)).fetchall() for t in tables} == before
    assert all(before.values())


def test_a_token_without_billing_read_lands_the_reports_and_says_one_line_per_scope(
    dialect: str, conn: duckdb.DuckDBPyConnection, tmp_path: Path
) -> None:
    for emu in _emulator(dialect, billing_read=False):
        said: list[str] = []
        result = _run(emu, conn, said)
        assert said == result.denied and len(said) == 2
        enterprise = emu.credentials["enterprise"]
        assert said[0] == (
            f"billing of enterprise {enterprise} not read: the token needs enterprise administrator, billing "
            "manager or an app with billing read; cost views stay empty for it"
        )
        assert conn.execute("SELECT DISTINCT status FROM billing.fetches").fetchall() == [("denied",)]
        assert conn.execute("SELECT count(*) FROM billing.credit_usage").fetchone() == (0,)
        with ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as client:
            landed = ingest_report(
                client=client,
                ref=ReportRef("organization", emu.credentials["org"], "1-day", "user", day=date(2026, 11, 18)),
                conn=conn,
                raw_dir=tmp_path / "raw",
            )
        assert landed.available
        assert conn.execute("SELECT count(*) FROM core.user_daily_totals").fetchone() != (0,)


def test_months_before_june_2026_land_as_premium_requests_and_later_ones_as_ai_credits(dialect: str) -> None:
    for emu in _emulator(dialect, today=date(2026, 6, 10)):
        with duckdb.connect() as conn:
            migrate(conn)
            _run(emu, conn)
            meters = conn.execute(
                "SELECT date_trunc('month', day) AS month, meter, unit_type, min(price_per_unit), max(price_per_unit)"
                " FROM billing.credit_usage GROUP BY ALL ORDER BY ALL"
            ).fetchall()
            assert [row[1:] for row in meters] == [
                ("premium_request", "requests", Decimal("0.04"), Decimal("0.04")),
                ("ai_credit", "ai-credits", Decimal("0.01"), Decimal("0.01")),
            ]
            for scope, name in _scopes(emu):
                may = date(2026, 5, 1)
                net = _month_sums(conn, "billing.credit_usage", scope, name, may)[5]
                assert net == Decimal(_bill(emu, scope, name, may)["total"]["net_amount"]), scope
