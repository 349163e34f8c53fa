"""The clean reference: the emulator without faults and the warehouse `metrics-etl run` builds
from it. The chaos and idempotency proofs compare their warehouses with this one."""

from __future__ import annotations

import os
import random
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from tests.e2e._postgres import Postgres, postgres_server
from tests.e2e.chaos import Emulated, Emulator, Fingerprint, fingerprints, pipeline_env, run_cli, start_emulator, stop

SEED = 7
# Small report files, so a user-level report is several files and a restart can hit any one.
EMULATOR_ARGS = ("--user-lines-per-file", "20")
FULL = os.environ.get("CHAOS_FULL") == "1"


@dataclass(frozen=True)
class Window:
    """Final days only (more than three days old): their reports no longer change, so every
    difference between two warehouses is the pipeline's doing, not the platform's."""

    first: str
    last: str

    @property
    def run_args(self) -> list[str]:
        # The latest 28-day report ends yesterday, which is not final: it is left out.
        return ["run", "--from", self.first, "--to", self.last, "--no-latest"]


@dataclass(frozen=True)
class Reference:
    emulator: Emulator
    place: Emulated
    window: Window
    prints: dict[str, Fingerprint]
    log: str


@pytest.fixture(scope="session")
def window() -> Window:
    today = datetime.now(UTC).date()
    span = 40 if FULL else 8
    return Window(first=(today - timedelta(days=4 + span)).isoformat(), last=(today - timedelta(days=5)).isoformat())


@pytest.fixture(scope="session")
def reference(tmp_path_factory: pytest.TempPathFactory, window: Window):
    root = tmp_path_factory.mktemp("reference")
    emulator = start_emulator(workdir=root / "emulator", seed=SEED, extra=EMULATOR_ARGS)
    try:
        place = Emulated(root / "pipeline")
        env = pipeline_env(emulator, place, first_day=window.first)
        code, output = run_cli(window.run_args, env=env, cwd=place.root, log=root / "run.log")
        assert code == 0, output
        yield Reference(
            emulator=emulator,
            place=place,
            window=window,
            prints=fingerprints(place.warehouse, raw_dir=place.raw_dir),
            log=output,
        )
    finally:
        stop(emulator.process)


@pytest.fixture
def rng() -> random.Random:
    return random.Random(int(os.environ.get("CHAOS_SEED", "20261122")))


@pytest.fixture(scope="module")
def postgres() -> Iterator[Postgres]:
    """A PostgreSQL server of this module's own (tests/e2e/_postgres.py)."""
    with postgres_server() as server:
        if server is None:
            pytest.skip("no PostgreSQL server under /usr/lib/postgresql/*/bin (install Debian's `postgresql`)")
        yield server
