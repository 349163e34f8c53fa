"""Both vendors of a running emulator, as the assistant tests land them: one world (seed 11, 80
users, the vendors' rate limits out of the way), the settings naming both vendors' keys, and a
read of each vendor as a vendors run does it."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date
from pathlib import Path

import duckdb
import pytest

from emulator import EmulatorConfig, RunningEmulator
from pipelines.config import Secret, Settings
from pipelines.ingest.vendors import ingest_vendor
from pipelines.vendors import VendorClient

__all__ = ["read_vendors", "vendor_settings", "vendor_world"]


def vendor_world(today: date) -> EmulatorConfig:
    return EmulatorConfig(
        seed=11, users=80, repos=2, today=today, claude_requests_per_minute=1000, cursor_requests_per_minute=1000
    )


def vendor_settings(emu: RunningEmulator) -> Settings:
    creds = emu.credentials
    return Settings(
        anthropic_admin_key=Secret(creds["anthropic_admin_key"]),
        anthropic_base_url=creds["anthropic_base_url"],
        cursor_api_key=Secret(creds["cursor_api_key"]),
        cursor_base_url=creds["cursor_base_url"],
    )


def read_vendors(
    emu: RunningEmulator, conn: duckdb.DuckDBPyConnection, *, days: Iterable[date], raw_dir: Path, only: str = ""
) -> None:
    """Each vendor (or `only` that one) read for `days` into `conn`; any line it says fails the test."""
    configs, skipped = vendor_settings(emu).vendor_configs()
    assert not skipped, skipped
    for name, config in configs.items():
        if only and name != only:
            continue
        with VendorClient(config) as client:
            ingest_vendor(client, conn, days=list(days), raw_dir=raw_dir, say=pytest.fail)
