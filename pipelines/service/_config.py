"""The client's own configuration: everything it reads, frozen, with no knowledge of the environment.

The application builds one from its settings (``pipelines.config.Settings.service_config``);
a test or a script builds one directly. Messages name the variables the application reads,
so a person knows what to fix.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pipelines.service.auth import AppAuth, TokenAuth
from pipelines.service.dialect import get_dialect
from pipelines.service.errors import ConfigError

__all__ = ["ServiceConfig"]


@dataclass(frozen=True, kw_only=True)
class ServiceConfig:
    """Where the platform is, how to speak to it and as whom.

    ``graphql_url`` None means ``{base_url}/graphql``; ``etag_cache`` None means no conditional
    requests; ``auth`` None means anonymous requests.
    """

    base_url: str
    api_version: str
    graphql_url: str | None = None
    dialect: str = "service"
    auth: TokenAuth | AppAuth | None = None
    rate_limit_max_wait: float = 900.0
    etag_cache: Path | None = None
    timeout: float = 30.0

    def __post_init__(self) -> None:
        for name, address in (("SERVICE_BASE_URL", self.base_url), ("SERVICE_GRAPHQL_URL", self.graphql_endpoint)):
            if not address.lower().startswith(("http://", "https://")):
                raise ConfigError(f"{name} must start with http:// or https://")
        get_dialect(self.dialect)

    @property
    def graphql_endpoint(self) -> str:
        return self.graphql_url or f"{self.base_url}/graphql"
