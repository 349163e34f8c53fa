"""Settings from the environment (and a ``.env`` file), read once into one typed object.

Real environment variables win over ``.env``. Secrets are wrapped in :class:`Secret`, whose
repr never shows the value, so a logged or printed ``Settings`` leaks nothing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from types import MappingProxyType
from typing import Final

from dotenv import dotenv_values

from pipelines.service import AppAuth, ConfigError, Secret, ServiceConfig, TokenAuth
from pipelines.service.dialect import Scope

__all__ = ["DEFAULT_API_VERSION", "ENV_VARS", "SECRET_FIELDS", "Secret", "Settings"]

DEFAULT_API_VERSION = "2026-03-10"

# Each Settings field's environment variable (the README's configuration table): `from_env`
# reads these, and Dagster's resources name them (a secret reaches a resource only by its name).
ENV_VARS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "base_url": "SERVICE_BASE_URL",
        "graphql_url": "SERVICE_GRAPHQL_URL",
        "oauth_url": "SERVICE_OAUTH_URL",
        "token": "SERVICE_TOKEN",
        "token_file": "SERVICE_TOKEN_FILE",
        "app_id": "SERVICE_APP_ID",
        "app_private_key": "SERVICE_APP_PRIVATE_KEY",
        "app_private_key_path": "SERVICE_APP_PRIVATE_KEY_PATH",
        "installation_id": "SERVICE_INSTALLATION_ID",
        "client_id": "SERVICE_CLIENT_ID",
        "client_secret": "SERVICE_CLIENT_SECRET",
        "orgs": "SERVICE_ORG",
        "enterprises": "SERVICE_ENTERPRISE",
        "repos": "SERVICE_REPOS",
        "api_version": "SERVICE_API_VERSION",
        "dialect": "SERVICE_DIALECT",
        "rate_limit_max_wait": "SERVICE_RATE_LIMIT_MAX_WAIT",
        "etag_cache": "SERVICE_ETAG_CACHE",
        "warehouse_path": "WAREHOUSE_PATH",
        "serving_path": "SERVING_PATH",
        "lake_path": "LAKE_PATH",
        "raw_dir": "RAW_DIR",
        "webhook_secret": "WEBHOOK_SECRET",
        "webhook_spool_dir": "WEBHOOK_SPOOL_DIR",
        "metrics_start_day": "METRICS_START_DAY",
    }
)
SECRET_FIELDS: Final = frozenset({"token", "app_private_key", "client_secret", "webhook_secret"})


@dataclass(frozen=True)
class Settings:
    base_url: str | None = None
    graphql_url: str | None = None
    oauth_url: str | None = None
    token: Secret | None = None
    app_id: str | None = None
    app_private_key: Secret | None = None
    app_private_key_path: Path | None = None  # where app_private_key was read from, if from a file
    installation_id: str | None = None
    client_id: str | None = None
    client_secret: Secret | None = None
    orgs: tuple[str, ...] = ()
    enterprises: tuple[str, ...] = ()
    repos: tuple[str, ...] = ()
    api_version: str = DEFAULT_API_VERSION
    dialect: str = "service"
    rate_limit_max_wait: float = 900.0
    etag_cache: Path | None = Path("data/http-cache.sqlite3")  # None: no conditional requests
    token_file: Path = Path("data/token")
    warehouse_path: Path = Path("data/warehouse.duckdb")
    serving_path: Path = Path("data/serving.duckdb")
    lake_path: Path = Path("data/lake")
    raw_dir: Path = Path("data/raw")
    webhook_secret: Secret | None = None
    webhook_spool_dir: Path = Path("data/spool")
    metrics_start_day: date | None = None

    @property
    def scopes(self) -> tuple[tuple[Scope, str], ...]:
        """Every configured report scope: each organization, then each enterprise."""
        return (
            *(("organization", name) for name in self.orgs),
            *(("enterprise", name) for name in self.enterprises),
        )

    @property
    def uses_app(self) -> bool:
        return self.app_id is not None and self.app_private_key is not None and self.installation_id is not None

    def start_day(self, *, today: date) -> date:
        """First daily partition: ``METRICS_START_DAY`` or 28 days before ``today``."""
        return self.metrics_start_day or today - timedelta(days=28)

    def require_base_url(self) -> str:
        if not self.base_url:
            raise ConfigError(f"{ENV_VARS['base_url']} is not set")
        return self.base_url

    @classmethod
    def from_env(cls, *, environ: Mapping[str, str] | None = None, dotenv_path: Path | None = None) -> Settings:
        """Read the settings; ``environ`` defaults to ``os.environ`` plus ``.env`` (cwd)."""
        if environ is None:
            environ = os.environ
            dotenv_path = dotenv_path or Path(".env")
        env: dict[str, str] = {}
        if dotenv_path is not None and dotenv_path.is_file():
            env.update({k: v for k, v in dotenv_values(dotenv_path).items() if v is not None})
        env.update(environ)
        return _parse(env)

    def service_config(self) -> ServiceConfig:
        """The service client's configuration: an app installation if one is set, else the token."""
        base_url = self.require_base_url()
        auth: TokenAuth | AppAuth | None = None
        if self.app_id and self.app_private_key and self.installation_id:
            auth = AppAuth(
                app_id=self.app_id, private_key=self.app_private_key, installation_id=self.installation_id,
                base_url=base_url,
            )
        elif self.token is not None:
            auth = TokenAuth(token=self.token)
        return ServiceConfig(
            base_url=base_url,
            graphql_url=self.graphql_url,
            api_version=self.api_version,
            dialect=self.dialect,
            auth=auth,
            rate_limit_max_wait=self.rate_limit_max_wait,
            etag_cache=self.etag_cache,
        )


def _text(values: Mapping[str, str], field: str) -> str | None:
    value = values.get(field, "").strip()
    return value or None


def _secret(values: Mapping[str, str], field: str) -> Secret | None:
    value = _text(values, field)
    return Secret(value) if value else None


def _list(values: Mapping[str, str], field: str) -> tuple[str, ...]:
    """A comma list, blanks dropped, order kept, each entry once."""
    items = (item.strip() for item in (_text(values, field) or "").split(","))
    return tuple(dict.fromkeys(item for item in items if item))


# An organization or enterprise slug: letters, digits and hyphens (the path segment it becomes).
_SLUG = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9_.-]{0,98}[A-Za-z0-9_])?$")


def _scope_names(values: Mapping[str, str], field: str) -> tuple[str, ...]:
    names = _list(values, field)
    for entry in names:
        if not _SLUG.match(entry):
            raise ConfigError(
                f"{ENV_VARS[field]} entry {entry!r} is not an organization or enterprise name (comma-separate several)"
            )
    return names


def _parse(env: Mapping[str, str]) -> Settings:
    # Keyed by field from here on; messages name the variable through ENV_VARS.
    values = {field: env[name] for field, name in ENV_VARS.items() if name in env}
    base_url = _text(values, "base_url")
    base_url = base_url.rstrip("/") if base_url else None
    token_file = Path(_text(values, "token_file") or "data/token")
    token = _secret(values, "token") or _read_token_file(token_file)
    private_key = _secret(values, "app_private_key")
    key_text = _text(values, "app_private_key_path")
    key_path = Path(key_text) if key_text and private_key is None else None
    if key_path is not None:
        try:
            private_key = Secret(key_path.read_text())
        except OSError as exc:
            raise ConfigError(f"{ENV_VARS['app_private_key_path']} cannot be read: {exc.strerror}") from None
    max_wait = _text(values, "rate_limit_max_wait")
    start = _text(values, "metrics_start_day")
    try:
        max_wait_value = float(max_wait) if max_wait else 900.0
    except ValueError:
        raise ConfigError(f"{ENV_VARS['rate_limit_max_wait']} must be a number of seconds") from None
    try:
        start_day = date.fromisoformat(start) if start else None
    except ValueError:
        raise ConfigError(f"{ENV_VARS['metrics_start_day']} must be a date YYYY-MM-DD") from None
    return Settings(
        base_url=base_url,
        graphql_url=_text(values, "graphql_url") or (f"{base_url}/graphql" if base_url else None),
        oauth_url=(_text(values, "oauth_url") or base_url or "").rstrip("/") or None,
        token=token,
        app_id=_text(values, "app_id"),
        app_private_key=private_key,
        app_private_key_path=key_path,
        installation_id=_text(values, "installation_id"),
        client_id=_text(values, "client_id"),
        client_secret=_secret(values, "client_secret"),
        orgs=_scope_names(values, "orgs"),
        enterprises=_scope_names(values, "enterprises"),
        repos=_list(values, "repos"),
        api_version=_text(values, "api_version") or DEFAULT_API_VERSION,
        dialect=_text(values, "dialect") or "service",
        rate_limit_max_wait=max_wait_value,
        etag_cache=Path(_text(values, "etag_cache") or "data/http-cache.sqlite3"),
        token_file=token_file,
        warehouse_path=Path(_text(values, "warehouse_path") or "data/warehouse.duckdb"),
        serving_path=Path(_text(values, "serving_path") or "data/serving.duckdb"),
        lake_path=Path(_text(values, "lake_path") or "data/lake"),
        raw_dir=Path(_text(values, "raw_dir") or "data/raw"),
        webhook_secret=_secret(values, "webhook_secret"),
        webhook_spool_dir=Path(_text(values, "webhook_spool_dir") or "data/spool"),
        metrics_start_day=start_day,
    )


def _read_token_file(path: Path) -> Secret | None:
    try:
        value = path.read_text().strip()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{ENV_VARS['token_file']} {path} cannot be read: {exc.strerror}") from None
    return Secret(value) if value else None
