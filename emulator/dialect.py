"""Every wire name that differs between the contract's service dialect and the public service."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Wire:
    product: str
    version_header: str
    versions: frozenset[str]
    media_types: frozenset[str]
    media_type_header: str
    media_type_value: str
    event_header: str
    delivery_header: str
    docs_url: str  # the root of `documentation_url` in error bodies

    def record_name(self, name: str) -> str:
        """A report record's field name in this dialect: the public service's records say
        `copilot` where the service dialect's say `assistant` (total_created_by_copilot, ...)."""
        return name.replace("assistant", self.product)


_WIRES = {
    "service": Wire(
        product="assistant",
        version_header="x-service-api-version",
        versions=frozenset({"2026-03-10"}),
        media_types=frozenset({"application/vnd.service+json", "application/vnd.service.v3+json"}),
        media_type_header="x-service-media-type",
        media_type_value="service.v3; format=json",
        event_header="x-service-event",
        delivery_header="x-service-delivery",
        docs_url="https://docs.service.example/rest",
    ),
    "github": Wire(
        product="copilot",
        version_header="x-github-api-version",
        versions=frozenset({"2022-11-28", "2026-03-10"}),
        media_types=frozenset({"application/vnd.github+json", "application/vnd.github.v3+json"}),
        media_type_header="x-github-media-type",
        media_type_value="github.v3; format=json",
        event_header="x-github-event",
        delivery_header="x-github-delivery",
        docs_url="https://docs.github.com/rest",
    ),
}


def wire_for(dialect: str) -> Wire:
    return _WIRES[dialect]
