"""A receiver killed mid-stream loses no delivery it answered 200 for, and its spool still loads."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

from pipelines.webhooks.load import load_spool
from pipelines.webhooks.verify import sign

from .conftest import SECRET

REPO_ROOT = Path(__file__).resolve().parents[3]

_RECEIVER = """
import sys
from pathlib import Path
import uvicorn
from pipelines.webhooks.app import ReceiverConfig, create_app

config = ReceiverConfig(secret=sys.argv[2].encode(), spool_dir=Path(sys.argv[3]))
uvicorn.run(create_app(config=config), host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
"""


def _start(spool_dir: Path) -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    child = subprocess.Popen(
        [sys.executable, "-c", _RECEIVER, str(port), SECRET.decode(), str(spool_dir)], cwd=REPO_ROOT
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60  # a bound on waiting, not a measured duration
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/healthz").status_code == 200:
                return child, url
        except httpx.TransportError:
            time.sleep(0.05)
    child.kill()
    raise AssertionError("receiver did not start")


async def _send_until_killed(url: str, child: subprocess.Popen[bytes], kill_after: int) -> set[str]:
    acked: set[str] = set()
    body = json.dumps({"action": "opened", "repository": {"full_name": "acme/widgets"}, "pad": "x" * 4000}).encode()
    headers = {"x-service-event": "issues", "x-hub-signature-256": sign(secret=SECRET, body=body)}

    async def sender(number: int, client: httpx.AsyncClient) -> None:
        for sequence in range(10_000):
            delivery = f"s{number}-{sequence}"
            try:
                response = await client.post(
                    "/webhooks", content=body, headers=headers | {"x-service-delivery": delivery}
                )
            except httpx.TransportError:
                return
            if response.status_code == 200:
                acked.add(delivery)
            if len(acked) >= kill_after and child.poll() is None:
                os.kill(child.pid, signal.SIGKILL)

    async with httpx.AsyncClient(base_url=url, timeout=10) as client:
        await asyncio.gather(*(sender(n, client) for n in range(8)))
    return acked


def test_every_acknowledged_delivery_survives_a_receiver_kill(spool_dir, warehouse):
    child, url = _start(spool_dir)
    try:
        acked = asyncio.run(_send_until_killed(url, child, kill_after=200))
    finally:
        if child.poll() is None:
            child.kill()
        child.wait()
    assert child.returncode == -signal.SIGKILL
    assert len(acked) >= 200
    load_spool(warehouse, spool_dir, batch_size=64)
    stored = {r[0] for r in warehouse.execute("SELECT delivery_id FROM events.webhook_deliveries").fetchall()}
    assert acked <= stored
    # A restarted receiver writes a new segment beside the old one; both load, nothing twice.
    child, url = _start(spool_dir)
    try:
        with httpx.Client(base_url=url) as client:
            body = b'{"action": "closed", "repository": {"full_name": "acme/widgets"}}'
            headers = {
                "x-service-event": "issues",
                "x-service-delivery": "after-restart",
                "x-hub-signature-256": sign(secret=SECRET, body=body),
            }
            assert client.post("/webhooks", content=body, headers=headers).status_code == 200
    finally:
        child.send_signal(signal.SIGTERM)
        child.wait()
    result = load_spool(warehouse, spool_dir, batch_size=64)
    assert (result.loaded, result.duplicates) == (1, 0)
