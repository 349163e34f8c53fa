"""The production Dagster instance config (pipelines/_instance/postgres.yaml): operators' copy in
deploy/ is the same file, and Dagster accepts it with its connection taken from the environment.
(tests/e2e/test_postgres_instance.py runs it on a real PostgreSQL server.)"""

from __future__ import annotations

import shutil
from importlib.resources import files
from pathlib import Path

import pytest
import sqlalchemy
from dagster._config import process_config
from dagster._core.instance.ref import InstanceRef
from dagster._core.storage.config import pg_config
from dagster_postgres.utils import pg_url_from_config

import pipelines

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = files("pipelines") / "_instance" / "postgres.yaml"
PG_ENV = {
    "DAGSTER_PG_HOST": "db.internal",
    "DAGSTER_PG_PORT": "6543",
    "DAGSTER_PG_USER": "dagster",
    "DAGSTER_PG_PASSWORD": "p@ss:word/1",
    "DAGSTER_PG_DB": "metrics",
}


@pytest.fixture
def instance_ref(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> InstanceRef:
    for name, value in PG_ENV.items():
        monkeypatch.setenv(name, value)
    shutil.copyfile(ROOT / "deploy" / "dagster.yaml", tmp_path / "dagster.yaml")
    return InstanceRef.from_dir(str(tmp_path))  # validates the file against Dagster's schema


def test_deploy_dagster_yaml_is_the_packaged_template() -> None:
    assert (ROOT / "deploy" / "dagster.yaml").read_text() == TEMPLATE.read_text()


def test_every_storage_is_postgres_behind_the_queue(instance_ref: InstanceRef) -> None:
    assert instance_ref.storage_data is not None
    assert (instance_ref.storage_data.module_name, instance_ref.storage_data.class_name) == (
        "dagster_postgres",
        "DagsterPostgresStorage",
    )
    assert instance_ref.run_coordinator_data is not None
    assert instance_ref.run_coordinator_data.class_name == "QueuedRunCoordinator"
    settings = instance_ref.settings
    assert settings["concurrency"] == {"pools": {"default_limit": 1}, "runs": {"max_concurrent_runs": 4}}
    assert settings["telemetry"] == {"enabled": False}
    assert settings["run_monitoring"]["enabled"] is True
    # The managed logger is our package's root logger, so every module's logger is under it.
    assert settings["python_logs"]["managed_python_loggers"] == [pipelines.__name__]


def test_the_connection_comes_from_the_environment_with_an_installed_driver(instance_ref: InstanceRef) -> None:
    assert instance_ref.storage_data is not None
    assert PG_ENV["DAGSTER_PG_PASSWORD"] not in TEMPLATE.read_text()
    resolved = process_config(pg_config(), instance_ref.storage_data.config_dict)
    assert resolved.success, resolved.errors
    url = sqlalchemy.make_url(pg_url_from_config(resolved.value))
    assert (url.host, url.port, url.username, url.password, url.database) == (
        "db.internal",
        6543,
        "dagster",
        "p@ss:word/1",
        "metrics",
    )
    # Building the engine imports the driver the URL names (it does not connect).
    assert sqlalchemy.create_engine(url).dialect.driver == "psycopg2"
