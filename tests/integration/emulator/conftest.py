from __future__ import annotations

from collections.abc import Iterator
from datetime import date

import httpx
import pytest

from emulator import EmulatorConfig, RunningEmulator, running_emulator

TODAY = date(2026, 11, 20)


@pytest.fixture(scope="session")
def emu() -> Iterator[RunningEmulator]:
    """One shared emulator for tests that change no state."""
    with running_emulator(EmulatorConfig(seed=7, users=40, repos=6, today=TODAY, user_lines_per_file=300)) as running:
        yield running


@pytest.fixture
def fresh() -> Iterator[RunningEmulator]:
    """A private emulator for tests that change state (clock, faults, limits, hooks)."""
    with running_emulator(
        EmulatorConfig(seed=11, users=12, repos=3, issues_per_repo=7, today=TODAY, rate_limit=20, unauth_limit=5)
    ) as running:
        yield running


@pytest.fixture
def owner(emu: RunningEmulator) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=emu.base_url, headers={"Authorization": f"token {emu.credentials['token']}"}) as client:
        yield client
