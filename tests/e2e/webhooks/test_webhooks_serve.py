"""`metrics-etl webhooks serve` as a user runs it: environment settings, readiness, a delivery, shutdown."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from pipelines.webhooks.segments import read_segment, segments
from pipelines.webhooks.verify import sign

# Shutdown on SIGTERM is timed against startup: alone, not beside another busy worker.
pytestmark = pytest.mark.serial

SECRET = "e2e-webhook-secret"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _serve(tmp_path: Path, env: dict[str, str], port: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "pipelines.cli", "webhooks", "serve", "--port", str(port)],
        cwd=tmp_path,  # no stray .env from the checkout
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def _wait_ready(url: str, child: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + 60  # a bound on waiting, not a measured duration
    while time.monotonic() < deadline and child.poll() is None:
        try:
            if httpx.get(f"{url}/healthz").status_code == 200:
                return
        except httpx.TransportError:
            time.sleep(0.1)
    raise AssertionError("receiver never became ready")


def test_serve_accepts_a_signed_delivery_into_the_configured_spool(tmp_path):
    spool = tmp_path / "spool"
    env = {k: v for k, v in os.environ.items() if not k.startswith("WEBHOOK_")}
    env |= {"WEBHOOK_SECRET": SECRET, "WEBHOOK_SPOOL_DIR": str(spool)}
    port = _free_port()
    child = _serve(tmp_path, env, port)
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_ready(url, child)
        body = json.dumps({"action": "opened", "repository": {"full_name": "acme/widgets"}}).encode()
        headers = {"x-service-event": "issues", "x-service-delivery": "cli-1", "content-type": "application/json"}
        refused = httpx.post(f"{url}/webhooks", content=body, headers=headers | {"x-hub-signature-256": "sha256=00"})
        accepted = httpx.post(
            f"{url}/webhooks",
            content=body,
            headers=headers | {"x-hub-signature-256": sign(secret=SECRET.encode(), body=body)},
        )
        assert (refused.status_code, accepted.status_code) == (401, 200)
    finally:
        child.send_signal(signal.SIGTERM)
        output, _ = child.communicate(timeout=60)
    # uvicorn shuts down gracefully, then re-raises the SIGTERM it caught.
    assert child.returncode == -signal.SIGTERM
    assert SECRET not in output
    assert [s.record.delivery_id for seg in segments(spool) for s in read_segment(seg)] == ["cli-1"]
    # One INFO line per delivery on stderr (uvicorn's own format), the body and signature in none.
    lines = [line for line in output.splitlines() if " delivery id=" in line]
    assert [re.sub(r" ms=\d+\.\d$", "", line) for line in lines] == [
        f"INFO:     delivery id=cli-1 event=issues outcome={outcome} status={status} bytes={len(body)}"
        for outcome, status in (("bad_signature", 401), ("spooled", 200))
    ]
    assert "acme/widgets" not in output and sign(secret=SECRET.encode(), body=body) not in output


def test_serve_without_a_secret_says_so_in_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("WEBHOOK_")}
    child = _serve(tmp_path, env, _free_port())
    output, _ = child.communicate(timeout=60)
    assert child.returncode == 2
    assert (
        output.strip() == "metrics-etl webhooks serve: WEBHOOK_SECRET is not set: the receiver cannot verify deliveries"
    )
