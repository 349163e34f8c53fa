"""The billing backfill within the rate-limit budget, over loopback HTTP: newest months first, whole
months only, one line when it stops, the budget's reserve left, and the next runs (a fresh hour's
budget: a new emulator of the same seed and day) land the months not landed closed."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import duckdb

from emulator import EmulatorConfig, running_emulator
from pipelines.ingest.billing import ingest_billing
from pipelines.service import RetryPolicy, ServiceClient
from pipelines.service.billing_wire import Scope
from pipelines.warehouse import migrate
from tests._emulator import settings_for

TODAY = date(2026, 11, 20)
MONTHS = 6
RESERVE = 100
WINDOW = [date(2026, m, 1) for m in range(6, 12)]
FAST_RETRY = RetryPolicy(max_attempts=2, backoff_initial=0.01, backoff_max=0.02)
_LINE = re.compile(r"billing backfill: (\d+) of 6 months landed; the rest follow on the next runs \(rate limit\)")


def _next_run(conn: duckdb.DuckDBPyConnection, *, rate_limit: int) -> tuple[list[str], int | None]:
    """One run on an hour's fresh budget: what it said, and the budget it left."""
    config = EmulatorConfig(dialect="service", seed=7, users=12, repos=2, today=TODAY, rate_limit=rate_limit)
    with running_emulator(config) as emu:
        said: list[str] = []
        scopes: list[tuple[Scope, str]] = [
            ("enterprise", emu.credentials["enterprise"]),
            ("organization", emu.credentials["org"]),
        ]
        with ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as client:
            ingest_billing(client, conn, scopes=scopes, months=MONTHS, reserve=RESERVE, say=said.append)
            budget = client.budgets.get("core")
    return said, budget.remaining if budget is not None else None


def _months(conn: duckdb.DuckDBPyConnection, table: str) -> dict[str, list[date]]:
    rows = conn.execute(f"SELECT DISTINCT scope, date_trunc('month', day)::DATE FROM {table}").fetchall()
    return {scope: sorted(m for s, m in rows if s == scope) for scope in {s for s, _ in rows}}


def test_a_backfill_past_the_budget_lands_the_newest_whole_months_says_one_line_and_the_next_runs_finish_it(
    tmp_path: Path,
) -> None:
    with duckdb.connect(str(tmp_path / "warehouse.duckdb")) as conn:
        migrate(conn)
        said, left = _next_run(conn, rate_limit=800)
        (line,) = said
        match = _LINE.fullmatch(line)
        assert match is not None, line
        landed = int(match.group(1))
        assert 0 < landed < MONTHS
        assert left is not None and left >= RESERVE
        # Newest first and whole months: each scope holds the newest months, the same in each of
        # its tables; the line counts those every scope holds.
        held = _months(conn, "billing.credit_usage")
        for scope, months in held.items():
            assert months == WINDOW[-len(months) :], scope
            for table in ("billing.usage_summary", "billing.product_usage"):
                assert _months(conn, table)[scope] == months, (scope, table)
        assert _months(conn, "billing.cost_center_usage") == {"enterprise": held["enterprise"]}
        assert min(len(months) for months in held.values()) == landed
        for _ in range(MONTHS):
            said, left = _next_run(conn, rate_limit=800)
            assert left is not None and left >= RESERVE
            if not said:
                break
        assert said == []
        assert _months(conn, "billing.credit_usage") == {"enterprise": WINDOW, "organization": WINDOW}
        assert _months(conn, "billing.cost_center_usage") == {"enterprise": WINDOW}


def test_a_backfill_within_the_budget_says_nothing(tmp_path: Path) -> None:
    with duckdb.connect(str(tmp_path / "warehouse.duckdb")) as conn:
        migrate(conn)
        said, left = _next_run(conn, rate_limit=5000)
        assert said == []
        assert left is not None and left >= RESERVE
        assert _months(conn, "billing.credit_usage") == {"enterprise": WINDOW, "organization": WINDOW}
