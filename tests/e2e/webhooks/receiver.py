"""`metrics-etl webhooks serve` in a subprocess, so tests can read its memory from /proc."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx

from pipelines.webhooks.verify import sign

SECRET = "e2e-webhook-secret"
ISSUE = {"action": "opened", "repository": {"full_name": "acme/widgets"}, "issue": {"number": 1}}


@dataclass
class Receiver:
    url: str
    child: subprocess.Popen[str]
    output: str = ""

    def memory_mb(self, field: str = "VmHWM") -> float:
        """`VmHWM` is the peak resident set since start, `VmRSS` the current one (/proc/<pid>/status)."""
        for line in Path(f"/proc/{self.child.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
        raise AssertionError(f"{field} not in /proc/{self.child.pid}/status")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextlib.contextmanager
def serving(
    tmp_path: Path, *flags: str, spool: Path | None = None, preexec_fn: Callable[[], None] | None = None
) -> Iterator[Receiver]:
    """The receiver on a free loopback port, ready; stopped with SIGTERM, its output kept."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("WEBHOOK_")}
    env |= {"WEBHOOK_SECRET": SECRET, "WEBHOOK_SPOOL_DIR": str(spool or tmp_path / "spool")}
    child = subprocess.Popen(
        [sys.executable, "-m", "pipelines.cli", "webhooks", "serve", "--port", str(port), *flags],
        cwd=tmp_path,  # no stray .env from the checkout
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=preexec_fn,
    )
    receiver = Receiver(url=f"http://127.0.0.1:{port}", child=child)
    # Read as it comes: a flood logs a line per request, and a full pipe would stop the receiver.
    lines: list[str] = []
    assert child.stdout is not None
    reader = threading.Thread(target=lambda: lines.extend(child.stdout or ()), daemon=True)
    reader.start()
    try:
        _wait_listening(receiver)
        yield receiver
    finally:
        child.send_signal(signal.SIGTERM)
        child.wait(timeout=60)
        reader.join(timeout=60)
        receiver.output = "".join(lines)


def _wait_listening(receiver: Receiver) -> None:
    deadline = time.monotonic() + 60  # a bound on waiting, not a measured duration
    while time.monotonic() < deadline and receiver.child.poll() is None:
        try:
            httpx.get(f"{receiver.url}/healthz")
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError("receiver never started listening")


def signed_delivery(delivery_id: str, payload: dict = ISSUE) -> tuple[bytes, dict[str, str]]:
    body = json.dumps(payload).encode()
    headers = {
        "content-type": "application/json",
        "x-service-event": "issues",
        "x-service-delivery": delivery_id,
        "x-hub-signature-256": sign(secret=SECRET.encode(), body=body),
    }
    return body, headers


def deliver_timed(url: str, delivery_id: str) -> tuple[int, float]:
    """(status, seconds) of one signed delivery on a fresh connection."""
    body, headers = signed_delivery(delivery_id)
    started = time.monotonic()
    response = httpx.post(f"{url}/webhooks", content=body, headers=headers, timeout=30)
    return response.status_code, time.monotonic() - started
