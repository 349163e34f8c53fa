"""The cost views over what a run lands from the emulator over loopback HTTP, in both dialects:
its bill, cost centers, budgets, usage export and the usage reports of the same days. A closed
month's bi.cost_daily is the emulator's bill to the cent, bi.chargeback_by_team adds up to it
too, every billed model name is in the declared map, and the credit reconciliation agrees within
its tolerance where the emulator bills the signal's credits."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, timedelta
from decimal import Decimal

import duckdb
import httpx
import pytest

from emulator import EmulatorConfig, RunningEmulator, running_emulator
from pipelines.ingest import ingest_report
from pipelines.ingest.billing import ingest_billing
from pipelines.ingest.billing_exports import ingest_exports
from pipelines.ingest.billing_state import run_billing_state
from pipelines.service import ReportRef, RetryPolicy, ServiceClient
from pipelines.warehouse import migrate
from tests._emulator import settings_for

TODAY = date(2026, 11, 20)  # October closed on November 4th; November open
OCTOBER = date(2026, 10, 1)
# Usage-report days, final when fetched (more than three full days old) and provisional.
REPORT_DAYS = (date(2026, 11, 10), date(2026, 11, 11), date(2026, 11, 18))
FAST_RETRY = RetryPolicy(max_attempts=3, backoff_initial=0.01, backoff_max=0.05)


@pytest.fixture(scope="module", params=["github", "service"])
def landed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[RunningEmulator, duckdb.DuckDBPyConnection]]:
    path = tmp_path_factory.mktemp(f"cost-{request.param}")
    conn = duckdb.connect(str(path / "warehouse.duckdb"))
    migrate(conn)
    config = EmulatorConfig(seed=7, users=30, repos=4, today=TODAY, dialect=request.param)
    with (
        running_emulator(config) as emu,
        ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as client,
    ):
        enterprise, org = emu.credentials["enterprise"], emu.credentials["org"]
        scopes = [("enterprise", enterprise), ("organization", org)]
        for scope, name in scopes:
            for day in REPORT_DAYS:
                for level in ("aggregate", "user"):  # the user report carries the day's user-teams
                    ref = ReportRef(scope, name, "1-day", level, day)  # type: ignore[arg-type]
                    ingest_report(client=client, ref=ref, conn=conn, raw_dir=path / "raw")
        ingest_billing(client, conn, scopes=scopes, months=2, say=lambda line: None)  # type: ignore[arg-type]
        run_billing_state(client, conn, enterprises=(enterprise,), orgs=(org,), day=TODAY)
        ingest_exports(
            client, conn, enterprises=(enterprise,), raw_dir=path / "raw", months=1, sleep=lambda s: None, say=print
        )
        conn.close()  # the views are read as a reader reads them: not under a landing's memory limit
        with duckdb.connect(str(path / "warehouse.duckdb"), read_only=True) as reader:
            yield emu, reader


def test_a_closed_months_cost_daily_and_its_chargeback_are_the_emulators_bill_to_the_cent(
    landed: tuple[RunningEmulator, duckdb.DuckDBPyConnection],
) -> None:
    emu, conn = landed
    for scope, name in (("enterprise", emu.credentials["enterprise"]), ("organization", emu.credentials["org"])):
        answer = httpx.get(
            f"{emu.base_url}/_emulator/billing",
            params={"scope": scope, "name": name, "year": OCTOBER.year, "month": OCTOBER.month},
        )
        assert answer.status_code == 200, answer.text
        bill = Decimal(answer.json()["total"]["net_amount"])
        for view in ("bi.cost_daily", "bi.chargeback_by_team"):
            ((total,),) = conn.execute(
                f"SELECT sum(net_amount) FROM {view} WHERE scope = ? AND scope_name = ? AND day >= ? AND day < ?",
                [scope, name, OCTOBER, OCTOBER + timedelta(days=31)],
            ).fetchall()
            assert total == bill and bill > 0, (view, scope)


def test_each_billed_day_is_charged_back_to_the_millionth_and_the_report_days_reach_teams(
    landed: tuple[RunningEmulator, duckdb.DuckDBPyConnection],
) -> None:
    _, conn = landed
    # A day the included allowance covers whole bills nothing: no chargeback row, its sum 0.
    differing = conn.execute(
        "SELECT c.scope, c.day, c.net, b.net FROM"
        " (SELECT scope, scope_name, day, sum(net_amount) AS net FROM bi.cost_daily GROUP BY ALL) AS c"
        " LEFT JOIN (SELECT scope, scope_name, day, sum(net_amount) AS net FROM bi.chargeback_by_team GROUP BY ALL)"
        " AS b USING (scope, scope_name, day) WHERE coalesce(b.net, 0) <> c.net"
    ).fetchall()
    assert not differing
    assert not conn.execute(
        "SELECT * FROM bi.chargeback_by_team WHERE team_id IS NOT NULL AND net_amount < 0"
    ).fetchall()
    # On the days the usage reports landed, teams are charged: by cost center and by credit share.
    rules = {
        rule
        for (rule,) in conn.execute(
            "SELECT DISTINCT rule FROM bi.chargeback_by_team WHERE day IN (SELECT day FROM core.user_team_days)"
        ).fetchall()
    }
    assert {"cost center", "credit share"} <= rules


def test_every_model_the_emulator_bills_is_in_the_declared_map(
    landed: tuple[RunningEmulator, duckdb.DuckDBPyConnection],
) -> None:
    _, conn = landed
    assert conn.execute("SELECT count(*) FROM bi.cost_daily").fetchall()[0][0] > 0
    assert conn.execute("SELECT scope, model FROM bi.billing_model_drift").fetchall() == []


def test_the_emulators_billed_credits_reconcile_with_its_usage_reports_within_the_tolerance(
    landed: tuple[RunningEmulator, duckdb.DuckDBPyConnection],
) -> None:
    _, conn = landed
    calls = dict(
        conn.execute(
            "SELECT call, count(*) FROM bi.credit_reconciliation WHERE day IN (?, ?) GROUP BY ALL",
            list(REPORT_DAYS[:2]),
        ).fetchall()
    )
    # The emulator bills the signal's credits within 2%, users whose telemetry is off, and SKUs the
    # signal does not hold; the month is open, so some late usage has not posted yet.
    assert calls.get("agrees", 0) > 0
    assert calls.get("billed, not reported", 0) > 0
    assert set(calls) <= {"agrees", "differs", "billed, not reported", "reported, not billed"}


def test_budget_burn_consumes_to_the_cent_what_the_service_says_each_budget_consumed(
    landed: tuple[RunningEmulator, duckdb.DuckDBPyConnection],
) -> None:
    _, conn = landed
    rows = conn.execute(
        "SELECT b.budget_scope, b.consumed_to_date, s.consumed_amount, b.projected_month_end"
        " FROM bi.budget_burn AS b JOIN billing.budgets AS s USING (enterprise, budget_id)"
        " WHERE b.month = ? AND b.consumed_to_date IS NOT NULL",
        [date(2026, 11, 1)],
    ).fetchall()
    # The enterprise's, each cost center's and each user's budget: the bill covers their spend.
    assert {scope for scope, *_ in rows} == {"enterprise", "cost_center", "user"}
    for scope, consumed, said, projected in rows:
        assert consumed == said, scope
        assert projected >= consumed
