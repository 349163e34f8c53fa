"""`metrics-etl check`'s vendor lines over loopback against the emulator: what each key reads, a
refused key's one line naming the vendor, the cause and what to do, and `skipped` for a key unset."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from emulator import EmulatorConfig, RunningEmulator, running_emulator
from pipelines.cli._vendors import vendor_lines
from pipelines.config import Secret, Settings
from tests._vendors import vendor_settings


@pytest.fixture(scope="module")
def emu() -> Iterator[RunningEmulator]:
    with running_emulator(EmulatorConfig(seed=5, users=12, repos=2)) as running:
        yield running


def test_each_vendor_says_what_its_key_reads(emu: RunningEmulator) -> None:
    lines = vendor_lines(vendor_settings(emu))
    assert len(lines) == 2
    assert lines[0].startswith("Claude Code (Anthropic Admin API): OK: claude_code (")
    assert lines[1].startswith("Cursor (Cursor Admin API): OK: members (")
    assert all(endpoint in lines[1] for endpoint in ("daily_usage (", "spend ("))


def test_a_refused_key_and_an_unset_one_are_a_line_each(emu: RunningEmulator) -> None:
    creds = emu.credentials
    settings = Settings(cursor_api_key=Secret("key_wrong"), cursor_base_url=creds["cursor_base_url"])
    assert vendor_lines(settings) == [
        "Claude Code (Anthropic Admin API): skipped (ANTHROPIC_ADMIN_KEY is not set)",
        "Cursor (Cursor Admin API): the key in CURSOR_API_KEY was refused (401 Invalid API key): set it to a team "
        "Admin API key, made by a team admin in Cursor's settings (Enterprise teams)",
    ]
