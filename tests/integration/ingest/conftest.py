from collections.abc import Iterator
from datetime import date
from pathlib import Path

import duckdb
import pytest

from emulator import EmulatorConfig, running_emulator
from pipelines.service import RetryPolicy, ServiceClient
from pipelines.warehouse import migrate
from tests._emulator import settings_for

TODAY = date(2026, 11, 20)
FAST_RETRY = RetryPolicy(max_attempts=3, backoff_initial=0.01, backoff_max=0.05)


@pytest.fixture
def emulator_config() -> EmulatorConfig:
    return EmulatorConfig(seed=11, users=12, today=TODAY, user_lines_per_file=100)


@pytest.fixture
def emu(emulator_config):
    with running_emulator(emulator_config) as running:
        yield running


@pytest.fixture
def client(emu) -> Iterator[ServiceClient]:
    with ServiceClient(config=settings_for(emu).service_config(), retry=FAST_RETRY) as c:
        yield c


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    c = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    migrate(c)  # once up front, as the Dagster warehouse resource does per process
    yield c
    c.close()
