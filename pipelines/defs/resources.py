"""Dagster resources: the platform's API, the warehouse, and where files go.

Every setting is read from its environment variable through `dagster.EnvVar`, so Dagster
stores and shows the variable's name, never a secret's value.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

import dagster as dg
from dagster_duckdb import DuckDBResource

from pipelines.config import Settings
from pipelines.service import ServiceClient

# Field of ServiceResource → the environment variable of the design's table.
_SERVICE_ENV = {
    "base_url": "SERVICE_BASE_URL",
    "graphql_url": "SERVICE_GRAPHQL_URL",
    "oauth_url": "SERVICE_OAUTH_URL",
    "token": "SERVICE_TOKEN",
    "token_file": "SERVICE_TOKEN_FILE",
    "app_id": "SERVICE_APP_ID",
    "app_private_key": "SERVICE_APP_PRIVATE_KEY",
    "app_private_key_path": "SERVICE_APP_PRIVATE_KEY_PATH",
    "installation_id": "SERVICE_INSTALLATION_ID",
    "org": "SERVICE_ORG",
    "enterprise": "SERVICE_ENTERPRISE",
    "repos": "SERVICE_REPOS",
    "api_version": "SERVICE_API_VERSION",
    "dialect": "SERVICE_DIALECT",
    "rate_limit_max_wait": "SERVICE_RATE_LIMIT_MAX_WAIT",
    "etag_cache": "SERVICE_ETAG_CACHE",
}
_MEMORY_LIMIT = "256MB"
_STORAGE_ENV = {
    "raw_dir": "RAW_DIR",
    "spool_dir": "WEBHOOK_SPOOL_DIR",
    "serving_path": "SERVING_PATH",
    "lake_path": "LAKE_PATH",
}


class ServiceResource(dg.ConfigurableResource):
    """The platform's REST and GraphQL API (see the README's configuration table)."""

    base_url: str | None = None
    graphql_url: str | None = None
    oauth_url: str | None = None
    token: str | None = None
    token_file: str | None = None
    app_id: str | None = None
    app_private_key: str | None = None
    app_private_key_path: str | None = None
    installation_id: str | None = None
    org: str | None = None
    enterprise: str | None = None
    repos: str | None = None
    api_version: str | None = None
    dialect: str | None = None
    rate_limit_max_wait: str | None = None
    etag_cache: str | None = None

    def settings(self) -> Settings:
        environ = {env: getattr(self, field) for field, env in _SERVICE_ENV.items() if getattr(self, field)}
        return Settings.from_env(environ=environ)

    @contextmanager
    def client(self) -> Iterator[ServiceClient]:
        with ServiceClient(config=self.settings().service_config()) as client:
            yield client


class StorageResource(dg.ConfigurableResource):
    """Files beside the warehouse: the raw report archive, the webhook spool, the lake and the serving database."""

    raw_dir: str = "data/raw"
    spool_dir: str = "data/spool"
    serving_path: str = "data/serving.duckdb"
    lake_path: str = "data/lake"

    @property
    def raw_path(self) -> Path:
        return Path(self.raw_dir)


def _from_env(fields: Mapping[str, str], environ: Mapping[str, str]) -> dict[str, dg.EnvVar]:
    return {field: dg.EnvVar(env) for field, env in fields.items() if environ.get(env)}


def resources_from_env(environ: Mapping[str, str] | None = None) -> dict[str, dg.ConfigurableResource]:
    """Resources configured by the variables that are set; unset ones keep their defaults."""
    environ = os.environ if environ is None else environ
    warehouse = dg.EnvVar("WAREHOUSE_PATH") if environ.get("WAREHOUSE_PATH") else "data/warehouse.duckdb"
    return {
        "service": ServiceResource(**_from_env(_SERVICE_ENV, environ)),
        "storage": StorageResource(**_from_env(_STORAGE_ENV, environ)),
        # Every connection starts bounded; phases that need a different bound set their own
        # (landing 64 MB, publishing 256 MB, the audit 512 MB). Past it DuckDB spills to
        # <warehouse>.tmp beside the warehouse instead of failing.
        "warehouse": DuckDBResource(database=warehouse, connection_config={"memory_limit": _MEMORY_LIMIT}),
    }
