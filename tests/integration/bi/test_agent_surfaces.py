"""bi.agent_surfaces_daily over reports the emulator served: one measure, users, for every agent
surface side by side, agreeing with the user rows, the aggregate report and bi.agent_usage_daily."""

from datetime import timedelta
from pathlib import Path

import duckdb
import pytest

from emulator import EmulatorConfig, running_emulator
from pipelines.ingest import ingest_report
from pipelines.service import ReportRef, ServiceClient
from pipelines.warehouse import migrate
from tests._emulator import settings_for
from tests.integration.ingest.conftest import FAST_RETRY, TODAY

DAYS = [TODAY - timedelta(days=n) for n in (8, 7)]


@pytest.fixture(scope="module")
def conn(tmp_path_factory: pytest.TempPathFactory):
    path = tmp_path_factory.mktemp("surfaces") / "warehouse.duckdb"
    c = duckdb.connect(str(path))
    migrate(c)
    with (
        running_emulator(EmulatorConfig(seed=73, users=120, today=TODAY)) as emu,
        ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as client,
    ):
        for day in DAYS:
            for level in ("aggregate", "user"):
                ingest_report(
                    client=client,
                    ref=ReportRef("organization", "acme", "1-day", level, day),
                    conn=c,
                    raw_dir=Path(path).parent / "raw",
                )
    yield c
    c.close()


def _surfaces(conn, day):
    return {
        surface: (name, users, aggregate, sessions)
        for surface, name, users, aggregate, sessions in conn.execute(
            "SELECT surface, surface_name, users, users_in_aggregate, agent_sessions FROM bi.agent_surfaces_daily"
            " WHERE day = ?",
            [day],
        ).fetchall()
    }


@pytest.mark.parametrize("day", DAYS)
def test_first_party_surfaces_count_the_user_rows_and_show_the_aggregate_count(conn, day):
    rows = _surfaces(conn, day)
    flags = {
        "cloud_agent": "used_assistant_cloud_agent",
        "app": "used_assistant_app",
        "vscode_agent": "used_vscode_agent",
        "cli": "used_cli",
    }
    counts = {
        "cloud_agent": "daily_active_assistant_cloud_agent_users",
        "app": "daily_active_assistant_app_users",
        "vscode_agent": "daily_active_vscode_agent_users",
        "cli": "daily_active_cli_users",
    }
    for surface, flag in flags.items():
        (expected,) = conn.execute(
            f"SELECT count(*) FILTER (WHERE {flag}) FROM core.user_daily_totals WHERE day = ?", [day]
        ).fetchone()
        (aggregate,) = conn.execute(f"SELECT {counts[surface]} FROM core.daily_totals WHERE day = ?", [day]).fetchone()
        _, users, in_aggregate, _ = rows[surface]
        assert users == expected and in_aggregate == aggregate, surface
    assert any(rows[s][1] for s in flags), "the emulator's users use some first-party surface"


@pytest.mark.parametrize("day", DAYS)
def test_third_party_apps_agree_with_agent_usage_daily(conn, day):
    rows = _surfaces(conn, day)
    usage = {
        agent_id: (name, users, sessions)
        for agent_id, name, users, sessions in conn.execute(
            "SELECT agent_id, agent_name, agent_users, agent_sessions FROM bi.agent_usage_daily WHERE day = ?", [day]
        ).fetchall()
    }
    third = {
        surface.removeprefix("third_party:"): (name, users, sessions)
        for surface, (name, users, _, sessions) in rows.items()
        if surface.startswith("third_party:")
    }
    assert third == usage
