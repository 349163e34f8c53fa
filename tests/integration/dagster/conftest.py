from datetime import date, timedelta

import dagster as dg
import pytest

from emulator import EmulatorConfig, running_emulator


@pytest.fixture(scope="module")
def emulator():
    with running_emulator(EmulatorConfig(seed=11, users=25, repos=3, issues_per_repo=8)) as emu:
        yield emu


@pytest.fixture
def pipeline_env(emulator, tmp_path, monkeypatch):
    """The process environment a user would set, pointing at the emulator and a temp warehouse."""
    creds = emulator.credentials
    env = {
        "SERVICE_BASE_URL": creds["base_url"],
        "SERVICE_TOKEN": creds["token"],
        "SERVICE_ORG": creds["org"],
        "SERVICE_ENTERPRISE": creds["enterprise"],
        "WAREHOUSE_PATH": str(tmp_path / "warehouse.duckdb"),
        "RAW_DIR": str(tmp_path / "raw"),
        "SERVICE_ETAG_CACHE": str(tmp_path / "http-cache.sqlite3"),
        "SERVING_PATH": str(tmp_path / "serving.duckdb"),
        "LAKE_PATH": str(tmp_path / "lake"),
        "WEBHOOK_SPOOL_DIR": str(tmp_path / "spool"),
        "METRICS_START_DAY": (date.today() - timedelta(days=20)).isoformat(),
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env


@pytest.fixture
def instance():
    with dg.instance_for_test() as inst:
        yield inst
