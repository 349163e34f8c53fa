"""Configuration pointed at a running emulator, from its credentials (emulator.server.credentials_for).

One mapping for every test: the emulator's URLs, its token, its primary organization and its
dialect. `overrides` win (a `Settings` field for `settings_for`, a variable for `environ_for`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Protocol

from pipelines.config import Secret, Settings

__all__ = ["environ_for", "settings_for"]


class _Emulator(Protocol):
    """In-process (`running_emulator`) or a subprocess (tests/e2e/chaos.py): both have these."""

    @property
    def credentials(self) -> Mapping[str, Any]: ...


def settings_for(emu: _Emulator, **overrides: Any) -> Settings:
    creds = emu.credentials
    settings = Settings(
        base_url=creds["base_url"],
        graphql_url=creds["graphql_url"],
        token=Secret(creds["token"]),
        orgs=(creds["org"],),
        dialect=creds["dialect"],
    )
    return replace(settings, **overrides)


def environ_for(emu: _Emulator, **overrides: str) -> dict[str, str]:
    """The `SERVICE_*` variables only: callers add where the pipeline keeps its files."""
    creds = emu.credentials
    return {
        "SERVICE_BASE_URL": creds["base_url"],
        "SERVICE_GRAPHQL_URL": creds["graphql_url"],
        "SERVICE_TOKEN": creds["token"],
        "SERVICE_ORG": creds["org"],
        "SERVICE_DIALECT": creds["dialect"],
        **overrides,
    }
