"""The declared service incidents mark real differences on the emulator's reports, landed over
loopback: on the days bi.service_incident_days marks, the measures they name moved as the service
said (September: app users down, CLI users up; from 2026-10-06: VS Code agent users gone, then
back once VS Code updated), and bi.reconciliation names the CLI-only users the service's
daily_active_users leaves out, with nothing unexplained."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path
from statistics import mean

import duckdb
import pytest

from emulator import EmulatorConfig, running_emulator
from pipelines.ingest import ingest_report
from pipelines.service import ReportRef, ServiceClient
from pipelines.warehouse import migrate
from tests._emulator import settings_for
from tests.integration.ingest.conftest import FAST_RETRY

TODAY = date(2026, 11, 20)
ORG = ("organization", "acme")
BEFORE_SEPTEMBER = [date(2026, 8, 24) + timedelta(days=i) for i in range(8)]
SEPTEMBER = [date(2026, 9, 8) + timedelta(days=i) for i in range(8)]
BEFORE_SDK = [date(2026, 9, 28) + timedelta(days=i) for i in range(8)]
SDK_FIRST = [date(2026, 10, 6) + timedelta(days=i) for i in range(4)]
VSCODE_UPDATED = [date(2026, 10, 28) + timedelta(days=i) for i in range(4)]
DAYS = BEFORE_SEPTEMBER + SEPTEMBER + BEFORE_SDK + SDK_FIRST + VSCODE_UPDATED


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory):
    path: Path = tmp_path_factory.mktemp("incident-days")
    warehouse = duckdb.connect(str(path / "w.duckdb"))
    migrate(warehouse)
    config = EmulatorConfig(seed=23, users=60, today=TODAY, history_days=125)
    with (
        running_emulator(config) as emu,
        ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as client,
    ):
        for day in DAYS:
            for level in ("aggregate", "user"):
                ingest_report(
                    client=client, ref=ReportRef(*ORG, "1-day", level, day), conn=warehouse, raw_dir=path / "raw"
                )
    yield warehouse
    warehouse.close()


def _mean(conn: duckdb.DuckDBPyConnection, column: str, days: list[date]) -> float:
    values = dict(conn.execute(f"SELECT day, {column} FROM core.daily_totals WHERE scope = 'organization'").fetchall())
    return mean(values[day] for day in days)


def _incidents(conn: duckdb.DuckDBPyConnection, days: list[date]) -> set[str]:
    return {
        i
        for (i,) in conn.execute(
            "SELECT DISTINCT incident_id FROM bi.service_incident_days WHERE scope = 'organization' AND day IN "
            "(SELECT unnest(?::DATE[]))",
            [days],
        ).fetchall()
    }


def test_on_the_emulator_the_days_of_the_september_incident_show_app_users_down_and_cli_users_up(conn) -> None:
    assert _incidents(conn, SEPTEMBER) == {"app-reported-as-cli-2026-09"} and not _incidents(conn, BEFORE_SEPTEMBER)
    assert _mean(conn, "daily_active_assistant_app_users", SEPTEMBER) < 0.5 * _mean(
        conn, "daily_active_assistant_app_users", BEFORE_SEPTEMBER
    )
    assert _mean(conn, "daily_active_cli_users", SEPTEMBER) > _mean(conn, "daily_active_cli_users", BEFORE_SEPTEMBER)


def test_on_the_emulator_the_sdk_incident_days_lose_vscode_agent_users_until_vscode_updates(conn) -> None:
    assert _incidents(conn, SDK_FIRST) == {"ide-agent-sessions-via-sdk-2026-10"}
    assert not _incidents(conn, BEFORE_SDK[-5:])
    before = _mean(conn, "daily_active_vscode_agent_users", BEFORE_SDK)
    assert before > 0 and _mean(conn, "daily_active_vscode_agent_users", SDK_FIRST) < 0.2 * before
    assert _mean(conn, "daily_active_vscode_agent_users", VSCODE_UPDATED) > 0.4 * before


def test_reconciliation_names_the_cli_only_users_and_leaves_nothing_unexplained(conn) -> None:
    rows = conn.execute(
        "SELECT day, status, cli_only_users, residual_difference FROM bi.reconciliation"
        " WHERE comparison = 'aggregate vs users' AND measure = 'active_users' AND scope = 'organization'"
    ).fetchall()
    assert len(rows) == len(DAYS)
    assert all(status != "unexplained" for _, status, _, _ in rows), [r for r in rows if r[1] == "unexplained"]
    assert sum(cli for _, _, cli, _ in rows) > 0
    # September's app-only users served as CLI are CLI-only users: the class grows there.
    by_day = {day: cli for day, _, cli, _ in rows}
    assert mean(by_day[d] for d in SEPTEMBER) > mean(by_day[d] for d in BEFORE_SEPTEMBER)
