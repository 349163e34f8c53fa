from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import duckdb
import httpx
import pytest

from pipelines.warehouse.migrate import migrate
from pipelines.webhooks.app import ReceiverConfig, running_receiver
from pipelines.webhooks.verify import sign

REFERENCE = Path(__file__).resolve().parents[4] / "shared" / "reference" / "webhooks"
SECRET = b"test-webhook-secret"


def apply_events_schema(conn: duckdb.DuckDBPyConnection) -> None:
    migrate(conn)


def deliver(
    client: httpx.Client,
    payload: dict | bytes,
    *,
    delivery_id: str,
    event: str = "issues",
    secret: bytes = SECRET,
) -> httpx.Response:
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return client.post(
        "/webhooks",
        content=body,
        headers={
            "content-type": "application/json",
            "x-service-event": event,
            "x-service-delivery": delivery_id,
            "x-hub-signature-256": sign(secret=secret, body=body),
        },
    )


@pytest.fixture
def spool_dir(tmp_path: Path) -> Path:
    return tmp_path / "spool"


@pytest.fixture
def config(spool_dir: Path) -> ReceiverConfig:
    return ReceiverConfig(secret=SECRET, spool_dir=spool_dir, max_body_bytes=64 * 1024)


@pytest.fixture
def client(config: ReceiverConfig) -> Iterator[httpx.Client]:
    with running_receiver(config=config) as base_url, httpx.Client(base_url=base_url) as http:
        yield http


@pytest.fixture
def warehouse(tmp_path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    conn = duckdb.connect(str(tmp_path / "warehouse.duckdb"))
    apply_events_schema(conn)
    yield conn
    conn.close()
