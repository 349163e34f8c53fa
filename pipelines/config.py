"""Settings from the environment (and a ``.env`` file), read once into one typed object.

Real environment variables win over ``.env``. Secrets are wrapped in :class:`Secret`, whose
repr never shows the value, so a logged or printed ``Settings`` leaks nothing.

Every file the pipeline keeps lives under one data home, ``METRICS_HOME`` (default
``~/.local/share/metrics-etl``, or ``$XDG_DATA_HOME/metrics-etl``): a relative path setting is
taken inside it, so what a run writes never depends on the directory it was started from.

Long because it is the one place that names, parses and checks every setting; splitting the
parsers from the fields they fill would put each setting's rule in two places.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from pathlib import Path
from types import MappingProxyType
from typing import Final, NoReturn

from dotenv import dotenv_values

from pipelines._clock import parse_day
from pipelines.alerts import AlertConfig, parse_targets
from pipelines.service import AppAuth, ConfigError, Secret, ServiceConfig, TokenAuth
from pipelines.service.dialect import Scope
from pipelines.vendors import VENDORS, Key, VendorConfig, vendor_config

__all__ = [
    "CATALOG_TIERS",
    "DEFAULT_API_VERSION",
    "ENV_VARS",
    "PAGE_TIERS",
    "SECRET_FIELDS",
    "VENDOR_FIELDS",
    "ConfigError",
    "MetricsConfig",
    "Secret",
    "Settings",
    "default_data_dir",
]

DEFAULT_API_VERSION = "2026-03-10"
# The privacy tiers report.html can follow (docs/privacy.md): everything the serving database
# holds, or "aggregate": nobody named, as the aggregate tier promises.
PAGE_TIERS: Final = ("full", "aggregate")
# The tiers the metric catalog may serve (`metrics-etl metrics`, `metrics-etl mcp`): the aggregate
# tier alone, or with the pseudonymous tier's per-person metrics beside it (docs/metrics.md).
CATALOG_TIERS: Final = ("aggregate", "pseudonymous")
_APP_DIR = "metrics-etl"

# Each Settings field's environment variable (the table of docs/configuration.md): `from_env`
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
        "home": "METRICS_HOME",
        "dagster_home": "DAGSTER_HOME",
        "warehouse_path": "WAREHOUSE_PATH",
        "serving_path": "SERVING_PATH",
        "lake_path": "LAKE_PATH",
        "raw_dir": "RAW_DIR",
        "webhook_secret": "WEBHOOK_SECRET",
        "webhook_spool_dir": "WEBHOOK_SPOOL_DIR",
        "metrics_start_day": "METRICS_START_DAY",
        "automation": "METRICS_AUTOMATION",
        "trailing_days": "METRICS_TRAILING_DAYS",
        "billing_months": "BILLING_MONTHS",
        "lock_wait": "WAREHOUSE_LOCK_WAIT",
        "alerts": "METRICS_ALERTS",
        "webserver_url": "DAGSTER_WEBSERVER_URL",
        "pseudonym_key": "METRICS_PSEUDONYM_KEY",
        "retention_days": "METRICS_RETENTION_DAYS",
        "aggregate_k": "METRICS_AGGREGATE_K",
        "page_tier": "METRICS_PAGE_TIER",
        "sql_timeout": "METRICS_SQL_TIMEOUT",
        "sql_memory_limit": "METRICS_SQL_MEMORY_LIMIT",
        "sql_spill_limit": "METRICS_SQL_SPILL_LIMIT",
        "catalog_tier": "METRICS_CATALOG_TIER",
        "catalog_row_limit": "METRICS_CATALOG_ROW_LIMIT",
        "catalog_timeout": "METRICS_CATALOG_TIMEOUT",
        "anthropic_admin_key": "ANTHROPIC_ADMIN_KEY",
        "anthropic_base_url": "ANTHROPIC_BASE_URL",
        "cursor_api_key": "CURSOR_API_KEY",
        "cursor_base_url": "CURSOR_BASE_URL",
        "identity_map_path": "IDENTITY_MAP_PATH",
    }
)
# Each vendor a team also buys directly (pipelines/vendors/wire.py): its key's and its address's
# Settings fields. A vendor is read only when its key is set (docs/vendors.md).
VENDOR_FIELDS: Final[Mapping[str, tuple[str, str]]] = MappingProxyType(
    {"claude_code": ("anthropic_admin_key", "anthropic_base_url"), "cursor": ("cursor_api_key", "cursor_base_url")}
)
# No vendor key holds a space or control character: one inside (a paste of two lines) would be
# sent into a header, or quoted by httpx refusing it, so the vendor is not read.
_UNSENDABLE_KEY = re.compile(r"[\s\x00-\x1f\x7f]")
# Values that grant access; METRICS_ALERTS holds webhook keys and SMTP passwords.
# METRICS_PSEUDONYM_KEY keys the pseudonyms and the erased people's hashes: with it, a user id
# could be tested against them.
SECRET_FIELDS: Final = frozenset(
    {"token", "app_private_key", "client_secret", "webhook_secret", "alerts", "pseudonym_key"}
    | {"anthropic_admin_key", "cursor_api_key"}
)


def default_data_dir(environ: Mapping[str, str] | None = None) -> Path:
    """Where per-user data goes by default: ``$XDG_DATA_HOME``, else ``~/.local/share``."""
    environ = os.environ if environ is None else environ
    xdg = environ.get("XDG_DATA_HOME", "").strip()
    return Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share"


# Each path setting's place in the home when it is not set (or set relative).
_HOME_NAMES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "etag_cache": "http-cache.sqlite3",
        "token_file": "token",
        "warehouse_path": "warehouse.duckdb",
        "serving_path": "serving.duckdb",
        "lake_path": "lake",
        "raw_dir": "raw",
        "webhook_spool_dir": "spool",
        "dagster_home": "dagster",
    }
)


@dataclass(frozen=True)
class MetricsConfig:
    """What the metric catalog's reader (pipelines.metrics) may open, read-only: the aggregate
    tier's serving database, and the pseudonymous tier's when `tier` is "pseudonymous" (each in
    its tier's directory, beside that tier's lake); and how much one answer may take."""

    aggregate_path: Path
    pseudonymous_path: Path | None = None
    tier: str = "aggregate"  # CATALOG_TIERS
    row_limit: int = 1000
    time_limit_s: float = 10.0


def _tier_serving(serving: Path, tier: str) -> Path:
    """A tier's serving database, as pipelines.publish names it: `<tier>/<stem>-<tier><suffix>`
    beside SERVING_PATH (tests/unit/metrics/test_config.py holds the two names equal)."""
    return serving.parent / tier / f"{serving.stem}-{tier}{serving.suffix}"


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
    # Paths: a relative one is inside `home` (resolved when the settings are made).
    home: Path = field(default_factory=lambda: default_data_dir() / _APP_DIR)
    etag_cache: Path | None = Path(_HOME_NAMES["etag_cache"])  # None: no conditional requests
    token_file: Path = Path(_HOME_NAMES["token_file"])
    warehouse_path: Path = Path(_HOME_NAMES["warehouse_path"])
    serving_path: Path = Path(_HOME_NAMES["serving_path"])
    lake_path: Path = Path(_HOME_NAMES["lake_path"])
    raw_dir: Path = Path(_HOME_NAMES["raw_dir"])
    webhook_secret: Secret | None = None
    webhook_spool_dir: Path = Path(_HOME_NAMES["webhook_spool_dir"])
    dagster_home: Path = Path(_HOME_NAMES["dagster_home"])  # the Dagster instance: run history, schedules
    metrics_start_day: date | None = None
    automation: bool = False  # schedules and sensors start on
    trailing_days: int = 3  # days before the newest that the daily schedule fetches again
    # Months of billed usage a first run fetches back, the current one included (the service keeps
    # 24); 0: billing is not fetched (docs/billing.md).
    billing_months: int = 24
    lock_wait: float = 300.0  # seconds a run waits for another process's hold on the warehouse
    # Where alerts go (METRICS_ALERTS), with links to runs in the UI at DAGSTER_WEBSERVER_URL.
    alerts: AlertConfig = field(default_factory=AlertConfig)
    # Privacy (docs/privacy.md): the key of pseudonyms and of erased people's hashes, how many
    # days user-level rows, raw files and webhook payloads are kept (None: for ever), and the
    # smallest group the aggregate tier shows.
    pseudonym_key: Secret | None = None
    retention_days: int | None = None
    aggregate_k: int = 5
    # What report.html may show (PAGE_TIERS): "full", or "aggregate", which names nobody.
    page_tier: str = "full"
    # Bounds of one `metrics-etl sql` statement: seconds, memory and spill to a private temp
    # directory, in bytes (0: no spill), so an ad-hoc query cannot take the host with it.
    sql_timeout: float = 300.0
    sql_memory_limit: int = 2 * 1024**3
    sql_spill_limit: int = 4 * 1024**3
    # The metric catalog (docs/metrics.md): its tier (CATALOG_TIERS; per-person metrics only with
    # "pseudonymous"), and the rows and seconds one answer may take.
    catalog_tier: str = "aggregate"
    catalog_row_limit: int = 1000
    catalog_timeout: float = 10.0
    # The vendors' own usage APIs (docs/vendors.md): each read only when its key is set; its
    # address the vendor's unless set (the emulator's, in the demo and the tests).
    anthropic_admin_key: Secret | None = None
    anthropic_base_url: str | None = None
    cursor_api_key: Secret | None = None
    cursor_base_url: str | None = None
    # The operator's identity file (docs/vendors.md, "One person"): a CSV of email,login lines
    # mapping a vendor's email to a service login; None: the seats' public emails alone.
    identity_map_path: Path | None = None

    def __post_init__(self) -> None:
        home = self.home.expanduser().absolute()
        object.__setattr__(self, "home", home)
        for name in _HOME_NAMES:
            value: Path | None = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, home / value.expanduser())

    @property
    def logs_dir(self) -> Path:
        """One log file per `metrics-etl` run (Dagster keeps its own under `dagster_home`)."""
        return self.home / "logs"

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
            raise ConfigError(
                f"{ENV_VARS['base_url']} is not set: set it to the service's API address, in the environment or .env"
            )
        return self.base_url

    @classmethod
    def from_env(
        cls, *, environ: Mapping[str, str] | None = None, dotenv_path: Path | None = None, home: Path | None = None
    ) -> Settings:
        """Read the settings; ``environ`` defaults to ``os.environ`` plus ``.env`` (cwd).

        ``home``, when given (the CLI's ``--home``), wins over ``METRICS_HOME``.
        """
        data_dir = default_data_dir(environ)
        if environ is None:
            environ = os.environ
            dotenv_path = dotenv_path or Path(".env")
        env: dict[str, str] = {}
        if dotenv_path is not None and dotenv_path.is_file():
            env.update({k: v for k, v in dotenv_values(dotenv_path).items() if v is not None})
        env.update(environ)
        if home is not None:
            env[ENV_VARS["home"]] = str(home)
        return _parse(env, default_home=data_dir / _APP_DIR)

    def with_secrets(self, *, token: str | None, app_private_key: str | None) -> Settings:
        """These settings with their secrets given as text, or else read from their files (as
        from_env reads them): how a Dagster resource, which holds secrets only as environment
        variables, gets its settings back."""
        key = Secret(app_private_key) if app_private_key else None
        if key is None and self.app_private_key_path is not None:
            try:
                key = Secret(self.app_private_key_path.read_text())
            except OSError as exc:
                raise ConfigError(f"{ENV_VARS['app_private_key_path']} cannot be read: {exc.strerror}") from None
        return replace(self, token=Secret(token) if token else _read_token_file(self.token_file), app_private_key=key)

    def metrics_config(self, tier: str | None = None) -> MetricsConfig:
        """The metric catalog's reader configuration, at `tier` (None: METRICS_CATALOG_TIER's)."""
        tier = tier or self.catalog_tier
        if tier not in CATALOG_TIERS:
            raise ConfigError(f"the metric catalog's tier must be {' or '.join(CATALOG_TIERS)}, not {tier!r}")
        return MetricsConfig(
            aggregate_path=_tier_serving(self.serving_path, "aggregate"),
            pseudonymous_path=_tier_serving(self.serving_path, "pseudonymous") if tier == "pseudonymous" else None,
            tier=tier,
            row_limit=self.catalog_row_limit,
            time_limit_s=self.catalog_timeout,
        )

    def vendor_configs(self) -> tuple[dict[str, VendorConfig], list[str]]:
        """Each vendor whose key is set, configured; one line for each skipped (its key unset)."""
        configs: dict[str, VendorConfig] = {}
        skipped: list[str] = []
        for name, (key_field, url_field) in VENDOR_FIELDS.items():
            key: Secret | None = getattr(self, key_field)
            if key is None:
                skipped.append(f"{VENDORS[name].title}: skipped ({ENV_VARS[key_field]} is not set)")
                continue
            if _UNSENDABLE_KEY.search(key.reveal()):
                skipped.append(
                    f"{VENDORS[name].title}: not read: {ENV_VARS[key_field]} has a space or control character "
                    "inside, which no key has: set it to the key alone, on one line"
                )
                continue
            try:
                configs[name] = vendor_config(
                    name,
                    key=Key(key.reveal()),
                    base_url=getattr(self, url_field),
                    key_setting=ENV_VARS[key_field],
                    url_setting=ENV_VARS[url_field],
                )
            except ValueError as exc:
                raise ConfigError(str(exc)) from None
        return configs, skipped

    def service_config(self) -> ServiceConfig:
        """The service client's configuration: an app installation if one is set, else the token."""
        base_url = self.require_base_url()
        auth: TokenAuth | AppAuth | None = None
        if self.app_id and self.app_private_key and self.installation_id:
            auth = AppAuth(
                app_id=self.app_id,
                private_key=self.app_private_key,
                installation_id=self.installation_id,
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


def _flag(values: Mapping[str, str], field: str) -> bool:
    value = (_text(values, field) or "off").lower()
    if value not in _FLAGS:
        raise ConfigError(f"{ENV_VARS[field]} must be on or off, not {value!r}")
    return _FLAGS[value]


_FLAGS: Final = MappingProxyType(
    {"on": True, "true": True, "yes": True, "1": True, "off": False, "false": False, "no": False, "0": False}
)


def _number(values: Mapping[str, str], field: str, default: float, what: str) -> float:
    value = _text(values, field)
    try:
        number = float(value) if value else default
    except ValueError:
        raise ConfigError(f"{ENV_VARS[field]} must be {what}, not {value!r}") from None
    if number < 0:
        raise ConfigError(f"{ENV_VARS[field]} must be {what}, not {value!r}")
    return number


def _path(values: Mapping[str, str], field: str, home: Path) -> Path:
    """A path setting: given (``~`` expanded, relative ones inside the home) or its default place."""
    return home / Path(_text(values, field) or _HOME_NAMES[field]).expanduser()


def _parse(env: Mapping[str, str], *, default_home: Path) -> Settings:
    # Keyed by field from here on; messages name the variable through ENV_VARS.
    values = {field: env[name] for field, name in ENV_VARS.items() if name in env}
    home_text = _text(values, "home")
    home = (Path(home_text).expanduser() if home_text else default_home).absolute()
    base_url = _text(values, "base_url")
    base_url = base_url.rstrip("/") if base_url else None
    token_file = _path(values, "token_file", home)
    token = _secret(values, "token") or _read_token_file(token_file)
    private_key = _secret(values, "app_private_key")
    key_text = _text(values, "app_private_key_path")
    key_path = Path(key_text) if key_text and private_key is None else None
    if key_path is not None:
        try:
            private_key = Secret(key_path.read_text())
        except OSError as exc:
            raise ConfigError(f"{ENV_VARS['app_private_key_path']} cannot be read: {exc.strerror}") from None
    retention = _whole(values, "retention_days", None, "a whole number of days")
    k = _whole(values, "aggregate_k", 5, "a whole number of people, 2 or more")
    if k is not None and k < 2:
        raise ConfigError(f"{ENV_VARS['aggregate_k']} must be a whole number of people, 2 or more, not {k}")
    start = _text(values, "metrics_start_day")
    trailing = _number(values, "trailing_days", 3, "a whole number of days")
    if trailing != int(trailing):
        raise ConfigError(f"{ENV_VARS['trailing_days']} must be a whole number of days, not {trailing}")
    billing_months = _whole(values, "billing_months", 24, "a whole number of months from 0 to 24")
    if billing_months is not None and billing_months > 24:
        raise ConfigError(
            f"{ENV_VARS['billing_months']} must be a whole number of months from 0 to 24 (the service keeps 24)"
        )
    try:
        start_day = parse_day(start) if start else None
    except ValueError as exc:
        raise ConfigError(f"{ENV_VARS['metrics_start_day']}: {exc}") from None
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
        rate_limit_max_wait=_number(values, "rate_limit_max_wait", 900.0, "a number of seconds"),
        home=home,
        etag_cache=_path(values, "etag_cache", home),
        token_file=token_file,
        warehouse_path=_path(values, "warehouse_path", home),
        serving_path=_path(values, "serving_path", home),
        lake_path=_path(values, "lake_path", home),
        raw_dir=_path(values, "raw_dir", home),
        webhook_secret=_secret(values, "webhook_secret"),
        webhook_spool_dir=_path(values, "webhook_spool_dir", home),
        dagster_home=_path(values, "dagster_home", home),
        metrics_start_day=start_day,
        automation=_flag(values, "automation"),
        trailing_days=int(trailing),
        billing_months=24 if billing_months is None else billing_months,
        lock_wait=_number(values, "lock_wait", 300.0, "a number of seconds"),
        alerts=_alerts(values),
        pseudonym_key=_secret(values, "pseudonym_key"),
        retention_days=retention,
        aggregate_k=k or 5,
        page_tier=_choice(values, "page_tier", PAGE_TIERS),
        sql_timeout=_number(values, "sql_timeout", 300.0, "a number of seconds above 0") or _positive("sql_timeout"),
        sql_memory_limit=_size(values, "sql_memory_limit", 2 * 1024**3) or _positive("sql_memory_limit"),
        sql_spill_limit=_size(values, "sql_spill_limit", 4 * 1024**3),
        catalog_tier=_choice(values, "catalog_tier", CATALOG_TIERS),
        catalog_row_limit=_whole(values, "catalog_row_limit", 1000, "a whole number of rows above 0")
        or _positive("catalog_row_limit"),
        catalog_timeout=_number(values, "catalog_timeout", 10.0, "a number of seconds above 0")
        or _positive("catalog_timeout"),
        anthropic_admin_key=_secret(values, "anthropic_admin_key"),
        anthropic_base_url=_address(values, "anthropic_base_url"),
        cursor_api_key=_secret(values, "cursor_api_key"),
        cursor_base_url=_address(values, "cursor_base_url"),
        identity_map_path=home / Path(identity_map).expanduser()
        if (identity_map := _text(values, "identity_map_path"))
        else None,
    )


def _address(values: Mapping[str, str], field: str) -> str | None:
    """An http(s) address setting, without its trailing slash; None when unset."""
    value = _text(values, field)
    if value is not None and not value.lower().startswith(("http://", "https://")):
        raise ConfigError(f"{ENV_VARS[field]} must start with http:// or https://, not {value!r}")
    return value.rstrip("/") if value else None


_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*([KMGT]i?B|B)?", re.IGNORECASE)
_UNITS: Final = (
    {"": 1, "B": 1}
    | {f"{p}B": 1000 ** (i + 1) for i, p in enumerate("KMGT")}
    | {f"{p}IB": 1024 ** (i + 1) for i, p in enumerate("KMGT")}
)


def _size(values: Mapping[str, str], field: str, default: int) -> int:
    """A number of bytes: `512MB`, `2GiB`, `1.5GB` or plain bytes."""
    value = _text(values, field)
    if value is None:
        return default
    match = _SIZE.fullmatch(value)
    if not match:
        raise ConfigError(f"{ENV_VARS[field]} must be a size such as 512MB or 2GiB, not {value!r}")
    return int(float(match.group(1)) * _UNITS[(match.group(2) or "").upper()])


def _choice(values: Mapping[str, str], field: str, choices: tuple[str, ...]) -> str:
    """One of `choices`, the first by default."""
    value = (_text(values, field) or choices[0]).lower()
    if value not in choices:
        raise ConfigError(f"{ENV_VARS[field]} must be {' or '.join(choices)}, not {value!r}")
    return value


def _positive(field: str) -> NoReturn:
    raise ConfigError(f"{ENV_VARS[field]} must be above 0")


def _whole(values: Mapping[str, str], field: str, default: int | None, what: str) -> int | None:
    value = _text(values, field)
    if value is None:
        return default
    if not value.isdigit():
        raise ConfigError(f"{ENV_VARS[field]} must be {what}, not {value!r}")
    return int(value)


def _alerts(values: Mapping[str, str]) -> AlertConfig:
    try:
        targets = parse_targets(_text(values, "alerts") or "")
    except ValueError as exc:
        raise ConfigError(f"{ENV_VARS['alerts']} {exc} (comma-separate several; docs/operations.md, Alerts)") from None
    return AlertConfig(targets=targets, webserver_url=_text(values, "webserver_url"))


def _read_token_file(path: Path) -> Secret | None:
    try:
        value = path.read_text().strip()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"{ENV_VARS['token_file']} {path} cannot be read: {exc.strerror}") from None
    return Secret(value) if value else None
