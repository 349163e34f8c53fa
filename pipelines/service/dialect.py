"""Every wire name of the platform in one table: paths, headers, media types, event headers (the
reports' own names are their declarations', pipelines/service/kinds.py).

``service`` is the naming of docs/service-contract.md; ``github`` is the public service's. The emulator speaks both
(``--dialect``), so the whole client is exercised over HTTP under each.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipelines.service.errors import ConfigError
from pipelines.service.kinds import Kind, Level, Scope, report_kind

__all__ = ["DIALECTS", "Dialect", "Kind", "Level", "Scope", "get_dialect"]


@dataclass(frozen=True)
class Dialect:
    name: str
    product: str  # the path segment of the metrics reports
    version_header: str
    media_type: str
    event_header: str
    delivery_header: str
    media_type_header: str  # the answer header that names the server's media type
    signature_header: str = "x-hub-signature-256"

    def report_path(self, *, scope: Scope, scope_name: str, kind: Kind, level: Level) -> str:
        """The metadata path of one report (``?day=`` is added by the caller for 1-day)."""
        prefix = "orgs" if scope == "organization" else "enterprises"
        report = report_kind(level, kind).path_name(scope)
        return f"/{prefix}/{scope_name}/{self.product}/metrics/reports/{report}"


DIALECTS: dict[str, Dialect] = {
    "service": Dialect(
        name="service",
        product="assistant",
        version_header="X-Service-Api-Version",
        media_type="application/vnd.service+json",
        event_header="x-service-event",
        delivery_header="x-service-delivery",
        media_type_header="x-service-media-type",
    ),
    "github": Dialect(
        name="github",
        product="copilot",
        version_header="X-GitHub-Api-Version",
        media_type="application/vnd.github+json",
        event_header="x-github-event",
        delivery_header="x-github-delivery",
        media_type_header="x-github-media-type",
    ),
}


def get_dialect(name: str) -> Dialect:
    try:
        return DIALECTS[name]
    except KeyError:
        raise ConfigError(f"SERVICE_DIALECT must be one of {sorted(DIALECTS)}, got {name!r}") from None
