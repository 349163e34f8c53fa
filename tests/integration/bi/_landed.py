"""A warehouse of reports the emulator served over loopback, for the views' tests."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from emulator import EmulatorConfig, running_emulator
from pipelines.ingest import ingest_report
from pipelines.service import ReportRef, ServiceClient
from pipelines.warehouse import migrate
from tests._emulator import settings_for
from tests.integration.ingest.conftest import FAST_RETRY, TODAY


def landed_warehouse(
    tmp_path_factory: pytest.TempPathFactory, name: str, *, seed: int, users: int, dialect: str, refs: list[ReportRef]
) -> duckdb.DuckDBPyConnection:
    """A migrated warehouse holding `refs`, each landed as a run lands it."""
    path = tmp_path_factory.mktemp(name) / "warehouse.duckdb"
    conn = duckdb.connect(str(path))
    migrate(conn)
    config = EmulatorConfig(seed=seed, users=users, today=TODAY, dialect=dialect)
    with (
        running_emulator(config) as emu,
        ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as client,
    ):
        for ref in refs:
            ingest_report(client=client, ref=ref, conn=conn, raw_dir=Path(path).parent / "raw")
    return conn
