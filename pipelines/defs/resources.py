"""Dagster resources: the platform's API, the vendors' (defs/vendors/resource.py), the warehouse,
and where files go.

`build_resources(settings)` gives every setting as its typed value (no text to parse back),
except secrets: Dagster stores a resource's configuration in clear in its run storage, so a secret is only ever given as
`dagster.EnvVar` of its variable (config.ENV_VARS), read from the process environment at run time.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import dagster as dg
import duckdb
import pydantic
from dagster_duckdb import DuckDBResource

from pipelines.config import DEFAULT_API_VERSION, ENV_VARS, SECRET_FIELDS, Secret, Settings
from pipelines.defs.vendors.resource import VendorsResource, vendors_resource
from pipelines.service import ConfigError, ServiceClient
from pipelines.warehouse import migrate
from pipelines.warehouse.lock import connect_for_writing

__all__ = ["ServiceResource", "StorageResource", "VendorsResource", "WarehouseResource", "build_resources"]

_MEMORY_LIMIT = "256MB"


class ServiceResource(dg.ConfigurableResource["ServiceResource"]):
    """The platform's REST and GraphQL API: the Settings fields of those names, typed as Dagster
    config (tuples as lists, paths as text); secrets only as environment variables."""

    base_url: str | None = None
    graphql_url: str | None = None
    oauth_url: str | None = None
    token: str | None = None
    token_file: str | None = None
    app_id: str | None = None
    app_private_key: str | None = None
    app_private_key_path: str | None = None
    installation_id: str | None = None
    orgs: list[str] = pydantic.Field(default_factory=list)
    enterprises: list[str] = pydantic.Field(default_factory=list)
    repos: list[str] = pydantic.Field(default_factory=list)
    api_version: str = DEFAULT_API_VERSION
    dialect: str = "service"
    rate_limit_max_wait: float = 900.0
    etag_cache: str | None = None
    billing_months: int = 24

    def settings(self) -> Settings:
        values: dict[str, Any] = {name: getattr(self, name) for name in _PLAIN}
        for name, value in values.items():
            if isinstance(value, list):
                values[name] = tuple(value)
            elif name in _PATHS and value is not None:
                values[name] = Path(value)
        return Settings(**values).with_secrets(token=self.token, app_private_key=self.app_private_key)

    @contextmanager
    def client(self) -> Iterator[ServiceClient]:
        with ServiceClient(config=self.settings().service_config()) as client:
            yield client


# The resource's fields given as they are (secrets are not: they come back through with_secrets).
_PLAIN = tuple(name for name in ServiceResource.model_fields if name not in SECRET_FIELDS)
_PATHS = ("token_file", "app_private_key_path", "etag_cache")


class StorageResource(dg.ConfigurableResource["StorageResource"]):
    """Files beside the warehouse: the raw report archive, the webhook spool, the lake and the serving
    database; and what privacy asks of them (docs/privacy.md)."""

    # build_resources always gives all four (absolute, inside the data home).
    raw_dir: str
    webhook_spool_dir: str
    serving_path: str
    lake_path: str
    # METRICS_PSEUDONYM_KEY, only ever as its environment variable (a secret).
    pseudonym_key: str | None = None
    retention_days: int | None = None  # None: everything is kept
    aggregate_k: int = 5  # the aggregate tier's smallest group

    @property
    def raw_path(self) -> Path:
        return Path(self.raw_dir)

    @property
    def spool_path(self) -> Path:
        return Path(self.webhook_spool_dir)


# Databases this process has brought up to date: migrations run on a process's first connection.
_migrated: set[str] = set()
_migrating = threading.Lock()


class WarehouseResource(DuckDBResource):
    """The DuckDB warehouse, migrated once per process before its first connection is handed out.

    A connection waits up to `lock_wait` seconds for another process's hold on the file, and
    says so (DuckDBResource's own retry waits up to 100 s, silently).
    """

    lock_wait: float = 300.0

    @contextmanager
    def get_connection(self) -> Iterator[duckdb.DuckDBPyConnection]:
        conn = connect_for_writing(self.database, config=self.connection_config, wait=self.lock_wait)
        try:
            path = str(Path(self.database).resolve())
            with _migrating:
                if path not in _migrated:
                    migrate(conn)
                    _migrated.add(path)
            yield conn
        finally:
            conn.close()


def _config(value: Any) -> Any:
    """A setting as Dagster config: tuples as lists, paths as text."""
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, Path):
        return str(value)
    return value


def _secret(settings: Settings, field: str, source: str) -> dg.EnvVar | None:
    """A secret as its variable; None when the resource reads it from its file setting `source`.

    Raises ConfigError when the secret is in neither place: Dagster could not find it at run time.
    """
    value: Secret | None = getattr(settings, field)
    if value is None:
        return None
    name = ENV_VARS[field]
    if os.environ.get(name, "").strip() == value.reveal():
        return dg.EnvVar(name)
    from_file: Path | None = getattr(settings, source)
    if from_file is not None and value.reveal() in _read(from_file):
        return None
    raise ConfigError(
        f"{name} must be set in the process environment (Dagster reads secrets only from there), "
        f"or the secret given through {ENV_VARS[source]}"
    )


def _plain_secret(settings: Settings, field: str) -> dg.EnvVar | None:
    """A secret without a file setting: its variable, which must hold it in the process environment."""
    value: Secret | None = getattr(settings, field)
    if value is None:
        return None
    name = ENV_VARS[field]
    if os.environ.get(name, "").strip() != value.reveal():
        raise ConfigError(f"{name} must be set in the process environment (Dagster reads secrets only from there)")
    return dg.EnvVar(name)


def _read(path: Path) -> tuple[str, ...]:
    """The file's text as a token (stripped) and as a key (whole) are read; none if unreadable."""
    try:
        text = path.read_text()
    except OSError:
        return ()
    return text, text.strip()


def build_resources(settings: Settings) -> dict[str, dg.ConfigurableResource[Any]]:
    """The resources of `settings`: plain values, and each secret as its environment variable."""
    plain = {field: _config(getattr(settings, field)) for field in _PLAIN}
    return {
        "service": ServiceResource(
            **plain,
            token=_secret(settings, "token", "token_file"),
            app_private_key=_secret(settings, "app_private_key", "app_private_key_path"),
        ),
        "storage": StorageResource(
            raw_dir=str(settings.raw_dir),
            webhook_spool_dir=str(settings.webhook_spool_dir),
            serving_path=str(settings.serving_path),
            lake_path=str(settings.lake_path),
            pseudonym_key=_plain_secret(settings, "pseudonym_key"),
            retention_days=settings.retention_days,
            aggregate_k=settings.aggregate_k,
        ),
        "vendors": vendors_resource(settings, _plain_secret),
        # Every connection starts bounded; phases that need a different bound set their own
        # (landing 64 MB, publishing 256 MB, the audit 512 MB). Past it DuckDB spills to
        # <warehouse>.tmp beside the warehouse instead of failing.
        "warehouse": WarehouseResource(
            database=str(settings.warehouse_path),
            connection_config={"memory_limit": _MEMORY_LIMIT},
            lock_wait=settings.lock_wait,
        ),
    }
