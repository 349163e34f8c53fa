import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import duckdb
import httpx
import pytest

from emulator import EmulatorConfig, running_emulator
from pipelines.service import RetryPolicy, ServiceClient
from pipelines.warehouse import migrate
from tests._emulator import settings_for

# Retries stay on (the collector must cope with them) but back off in milliseconds.
FAST_RETRY = RetryPolicy(max_attempts=3, backoff_initial=0.01, backoff_max=0.05)


@pytest.fixture
def emulator_config() -> EmulatorConfig:
    return EmulatorConfig(seed=5, users=12, repos=4, issues_per_repo=130)


@pytest.fixture
def emu(emulator_config):
    with running_emulator(emulator_config) as running:
        yield running


@pytest.fixture
def make_client(emu, tmp_path) -> Iterator[Callable[..., ServiceClient]]:
    """Clients sharing one persistent ETag cache, as two runs on one machine would."""
    opened: list[ServiceClient] = []

    def _make(*, org: str | None = None, repos: tuple[str, ...] = ()) -> ServiceClient:
        settings = settings_for(
            emu, orgs=(org or emu.credentials["org"],), repos=repos, etag_cache=tmp_path / "etag-cache.sqlite3"
        )
        client = ServiceClient(config=settings.service_config(), retry=FAST_RETRY)
        opened.append(client)
        return client

    yield _make
    for client in opened:
        client.close()


@pytest.fixture
def warehouse(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    conn = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    migrate(conn)
    yield conn
    conn.close()


@pytest.fixture
def changed_service(request, emu) -> Iterator[str]:
    """A loopback proxy in front of the emulator, as a service that changed: each seat of its seat
    listings goes through the function the test's parameter names, `change(seat, place in listing)`."""
    change = request.param
    upstream = emu.base_url.rstrip("/")

    class Proxy(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "accept-encoding")}
            answer = httpx.get(upstream + self.path, headers=headers)
            body = answer.content
            if self.path.split("?")[0].endswith("/billing/seats") and answer.status_code == 200:
                page = answer.json()
                asked = httpx.URL(self.path).params
                first = (int(asked.get("page", 1)) - 1) * int(asked.get("per_page", 50))  # listing places
                page["seats"] = [change(seat, first + i) for i, seat in enumerate(page["seats"])]
                body = json.dumps(page).encode()
            self.send_response(answer.status_code)
            for name, value in answer.headers.items():
                if name.lower() not in ("content-length", "content-encoding", "transfer-encoding", "connection"):
                    self.send_header(name, value.replace(upstream, own))
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Proxy)
    own = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield own
    finally:
        server.shutdown()
        server.server_close()
