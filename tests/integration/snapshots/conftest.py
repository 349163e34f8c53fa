from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import pytest

from emulator import EmulatorConfig, running_emulator
from pipelines.service import RetryPolicy, ServiceClient
from pipelines.warehouse import migrate
from tests._emulator import settings_for

# Retries stay on (the collector must cope with them) but back off in milliseconds.
FAST_RETRY = RetryPolicy(max_attempts=3, backoff_initial=0.01, backoff_max=0.05)


@pytest.fixture
def emulator_config() -> EmulatorConfig:
    return EmulatorConfig(seed=5, users=12, repos=4, issues_per_repo=130)


@pytest.fixture
def emu(emulator_config):
    with running_emulator(emulator_config) as running:
        yield running


@pytest.fixture
def make_client(emu, tmp_path) -> Iterator[Callable[..., ServiceClient]]:
    """Clients sharing one persistent ETag cache, as two runs on one machine would."""
    opened: list[ServiceClient] = []

    def _make(*, org: str | None = None, repos: tuple[str, ...] = ()) -> ServiceClient:
        settings = settings_for(
            emu, orgs=(org or emu.credentials["org"],), repos=repos, etag_cache=tmp_path / "etag-cache.sqlite3"
        )
        client = ServiceClient(config=settings.service_config(), retry=FAST_RETRY)
        opened.append(client)
        return client

    yield _make
    for client in opened:
        client.close()


@pytest.fixture
def warehouse(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    conn = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    migrate(conn)
    yield conn
    conn.close()
