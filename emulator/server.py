"""Running the emulator: uvicorn in a background thread on a loopback port."""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import uvicorn

from emulator.app import build_app
from emulator.config import EmulatorConfig, FaultSpec
from emulator.crypto import private_key_pem
from emulator.errors import EmulatorError
from emulator.hooks import Deliveries
from emulator.state import EmulatorState
from emulator.vendors import vendor_credentials

_START_TIMEOUT_SECONDS = 30


class RunningEmulator:
    """A started emulator; its methods drive the admin endpoints over HTTP."""

    def __init__(self, *, base_url: str, credentials: dict[str, Any], state: EmulatorState) -> None:
        self.base_url = base_url
        self.credentials = credentials
        self.state = state

    def _admin(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        response = httpx.request(method, f"{self.base_url}/_emulator/{path}", json=body, timeout=30)
        response.raise_for_status()
        return response.json()

    def set_faults(self, faults: FaultSpec) -> None:
        self._admin("POST", "faults", faults.to_json())

    def set_today(self, day: date) -> None:
        self._admin("POST", "clock", {"today": day.isoformat()})

    def set_policy(self, *, scope: str, name: str, enabled: bool) -> None:
        self._admin("POST", "policy", {"scope": scope, "name": name, "enabled": enabled})

    def add_hook(
        self,
        *,
        url: str,
        secret: str,
        content_type: str = "json",
        events: tuple[str, ...] = ("*",),
        active: bool = True,
    ) -> dict[str, Any]:
        return self._admin(
            "POST",
            "hooks",
            {"url": url, "secret": secret, "content_type": content_type, "events": list(events), "active": active},
        )

    def rename_repository(self, *, full_name: str, name: str) -> dict[str, Any]:
        return self._admin("POST", "rename", {"full_name": full_name, "name": name})

    def delete_repository(self, *, full_name: str) -> dict[str, Any]:
        return self._admin("POST", "delete", {"full_name": full_name})

    def stats(self) -> dict[str, Any]:
        return self._admin("GET", "stats")

    def billed_total(self, *, scope: str, name: str, year: int, month: int) -> dict[str, Any]:
        """The billed total of a scope and month, per meter and in all, as decimal strings, and
        whether the month is closed (docs/emulator.md, "Billing")."""
        response = httpx.get(
            f"{self.base_url}/_emulator/billing",
            params={"scope": scope, "name": name, "year": year, "month": month},
            timeout=60,
        )
        response.raise_for_status()
        body: dict[str, Any] = response.json()
        return body


def credentials_for(state: EmulatorState, *, base_url: str, key_path: Path) -> dict[str, Any]:
    config = state.config
    return {
        "base_url": base_url,
        "oauth_url": base_url,
        "graphql_url": f"{base_url}/graphql",
        "token": state.token,
        "limited_token": state.limited_token,
        "app_id": state.app_id,
        "app_private_key_path": str(key_path),
        "installation_id": state.installation_id,
        "client_id": state.client_id,
        "client_secret": state.client_secret,
        "org": config.primary_org,
        "enterprise": config.primary_enterprise,
        "orgs": ",".join(config.orgs),
        "enterprises": ",".join(config.enterprises),
        "webhook_secret": state.webhook_secret,
        "dialect": config.dialect,
        **vendor_credentials(state, base_url=base_url),
    }


def write_private_key(state: EmulatorState, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(private_key_pem(state.app_key))
    os.chmod(path, 0o600)


@contextmanager
def running_emulator(
    config: EmulatorConfig | None = None, *, port: int = 0, key_path: Path | None = None
) -> Iterator[RunningEmulator]:
    """Start the emulator on 127.0.0.1 (a free port by default); stop it on exit."""
    config = config or EmulatorConfig()
    state = EmulatorState(config)
    deliveries = Deliveries(wire=state.wire, seed=config.seed)
    server = uvicorn.Server(
        uvicorn.Config(
            build_app(state, deliveries),
            host="127.0.0.1",
            port=port,
            http="httptools",
            lifespan="off",
            log_level="warning",
            access_log=False,
            timeout_graceful_shutdown=2,
            date_header=False,
        )
    )
    thread = threading.Thread(target=server.run, name="emulator-uvicorn", daemon=True)
    with tempfile.TemporaryDirectory(prefix="emulator-") as scratch:
        thread.start()
        try:
            deadline = time.monotonic() + _START_TIMEOUT_SECONDS
            while not server.started:
                if not thread.is_alive() or time.monotonic() > deadline:
                    raise EmulatorError(f"the emulator did not start on 127.0.0.1:{port}")
                time.sleep(0.02)
            bound = server.servers[0].sockets[0].getsockname()[1]
            base_url = f"http://127.0.0.1:{bound}"
            pem = key_path or Path(scratch) / "app-private-key.pem"
            write_private_key(state, pem)
            yield RunningEmulator(
                base_url=base_url, state=state, credentials=credentials_for(state, base_url=base_url, key_path=pem)
            )
        finally:
            server.should_exit = True
            thread.join(timeout=10)
            deliveries.close()


def config_summary(config: EmulatorConfig) -> str:
    data = asdict(config)
    data.pop("faults")
    return json.dumps(data, default=str)
