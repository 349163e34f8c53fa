from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from emulator import EmulatorConfig, FaultSpec, RunningEmulator, running_emulator
from pipelines.config import Settings
from pipelines.service import ServiceConfig
from pipelines.vendors import VENDORS

TODAY = date(2026, 11, 20)
# The settings a check test sets itself: none from the machine running the tests.
CHECK_SETTINGS = ("SERVICE_", "WEBHOOK_", "METRICS_", "BILLING_", "ANTHROPIC_", "CURSOR_")


def service_lines(output: str) -> list[str]:
    """`metrics-etl check`'s lines after its first, one per vendor (unset here: skipped): the service's."""
    lines = output.strip().splitlines()
    skipped = [f"{v.title}: skipped (" for v in VENDORS.values()]
    assert [line[: len(s)] for line, s in zip(lines, skipped, strict=False)] == skipped, lines
    return lines[len(skipped) :]


class FakeClock:
    """Starts at the real time (the emulator's resets are real epochs) and moves only on sleep.

    ``on_sleep`` lets a test make the world change while the client "waits", e.g. clear a fault
    the way a real rate-limit reset would.
    """

    def __init__(self) -> None:
        self.now = time.time()
        self.sleeps: list[float] = []
        self.on_sleep: Callable[[], None] | None = None

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        if self.on_sleep is not None:
            self.on_sleep()


@pytest.fixture(scope="package")
def emu() -> Iterator[RunningEmulator]:
    with running_emulator(
        EmulatorConfig(
            seed=3,
            users=8,
            repos=3,
            issues_per_repo=9,
            today=TODAY,
            user_lines_per_file=50,
            org="acme,globex",
            enterprise="acme-corp,initech",
        )
    ) as running:
        yield running


@pytest.fixture(autouse=True)
def _calm_world(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    if "emu" in request.fixturenames:
        running: RunningEmulator = request.getfixturevalue("emu")
        running.set_faults(FaultSpec())
        running.set_policy(scope="organization", name=running.credentials["org"], enabled=True)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


def env_for(emu: RunningEmulator, tmp_path: Path, *, auth: str = "token", **extra: str) -> dict[str, str]:
    c: dict[str, Any] = emu.credentials
    env = {
        "SERVICE_BASE_URL": c["base_url"],
        "SERVICE_ORG": c["org"],
        "SERVICE_DIALECT": c["dialect"],
        "SERVICE_ETAG_CACHE": str(tmp_path / "http-cache.sqlite3"),
        "SERVICE_TOKEN_FILE": str(tmp_path / "token"),
        "SERVICE_CLIENT_ID": c["client_id"],
        "SERVICE_CLIENT_SECRET": c["client_secret"],
    }
    if auth == "token":
        env["SERVICE_TOKEN"] = c["token"]
    elif auth == "limited":
        env["SERVICE_TOKEN"] = c["limited_token"]
    elif auth == "app":
        env |= {
            "SERVICE_APP_ID": str(c["app_id"]),
            "SERVICE_APP_PRIVATE_KEY_PATH": c["app_private_key_path"],
            "SERVICE_INSTALLATION_ID": str(c["installation_id"]),
        }
    return env | extra


def settings_for(emu: RunningEmulator, tmp_path: Path, *, auth: str = "token", **extra: str) -> Settings:
    return Settings.from_env(environ=env_for(emu, tmp_path, auth=auth, **extra))


def config_for(emu: RunningEmulator, tmp_path: Path, *, auth: str = "token", **extra: str) -> ServiceConfig:
    return settings_for(emu, tmp_path, auth=auth, **extra).service_config()


@pytest.fixture(scope="session")
def rsa_key_pem() -> str:
    """A valid RSA key that is not the app's."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
