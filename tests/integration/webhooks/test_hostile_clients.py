"""Clients that stall, overflow or flood: each is answered and closed within the receiver's limits."""

from __future__ import annotations

import dataclasses
import logging
import socket
import time
from urllib.parse import urlsplit

import httpx

from pipelines.webhooks.app import running_receiver

from .conftest import deliver

ISSUE = {"action": "opened", "repository": {"full_name": "acme/widgets"}}
# A bound on waiting for the receiver to act, far above its 1 s timeouts: never a measurement.
WAIT = 30


def _connect(base_url: str) -> socket.socket:
    parts = urlsplit(base_url)
    return socket.create_connection((parts.hostname, parts.port), timeout=WAIT)


def _read_until_closed(sock: socket.socket) -> bytes:
    """Everything the receiver sends until it closes the connection (at most WAIT seconds)."""
    received = b""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        chunk = sock.recv(65536)
        if not chunk:
            return received
        received += chunk
    raise AssertionError("the receiver kept the connection open")


def test_a_body_shorter_than_its_content_length_is_answered_408_and_closed(config):
    with running_receiver(config=dataclasses.replace(config, body_timeout=1.0)) as url, _connect(url) as sock:
        sock.sendall(b"POST /webhooks HTTP/1.1\r\nhost: x\r\ncontent-length: 1000\r\n\r\n" + b"{" * 500)
        assert _read_until_closed(sock).startswith(b"HTTP/1.1 408 ")


def test_a_chunked_body_that_never_ends_is_answered_408_and_closed(config):
    with running_receiver(config=dataclasses.replace(config, body_timeout=1.0)) as url, _connect(url) as sock:
        sock.sendall(b"POST /webhooks HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n")
        sock.settimeout(0.2)
        answer = b""
        # One small chunk every 0.2 s, each far under the size limit, until the receiver hangs
        # up; 150 rounds (30 s) bound the loop if it never does.
        for _ in range(150):
            try:
                sock.sendall(b"1\r\n{\r\n")
                chunk = sock.recv(65536)
            except TimeoutError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                break
            if not chunk:
                break
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 408 ")


def test_headers_that_never_end_are_answered_408_and_closed(config):
    with running_receiver(config=dataclasses.replace(config, header_timeout=1.0)) as url, _connect(url) as sock:
        sock.sendall(b"POST /webhooks HTTP/1.1\r\nhost: x\r\n")
        assert _read_until_closed(sock).startswith(b"HTTP/1.1 408 ")


def test_headers_over_the_header_limit_are_answered_431(config):
    with running_receiver(config=dataclasses.replace(config, max_header_bytes=4096)) as url, _connect(url) as sock:
        sock.sendall(b"POST /webhooks HTTP/1.1\r\nhost: x\r\n" + b"x-pad: " + b"a" * 8192 + b"\r\n")
        assert _read_until_closed(sock).startswith(b"HTTP/1.1 431 ")


def test_connections_over_the_cap_are_answered_503_at_once_and_later_ones_are_served(config):
    limited = dataclasses.replace(config, max_connections=10, header_timeout=1.0)
    with running_receiver(config=limited) as url:
        idle = [_connect(url) for _ in range(15)]
        try:
            answers = [_read_until_closed(sock) for sock in idle[10:]]
        finally:
            for sock in idle:
                sock.close()
        assert all(answer.startswith(b"HTTP/1.1 503 ") for answer in answers)
        # The idle ten are closed by the header timeout; a real delivery then gets through.
        with httpx.Client(base_url=url, timeout=WAIT) as client:
            deadline = time.monotonic() + WAIT
            while (status := _try_deliver(client)) != 200 and time.monotonic() < deadline:
                time.sleep(0.2)
        assert status == 200


def _try_deliver(client: httpx.Client) -> int:
    try:
        return deliver(client, ISSUE, delivery_id="after-the-flood").status_code
    except httpx.TransportError:
        return 0


def test_a_flood_of_oversized_heads_is_logged_as_one_line_with_a_count(config, caplog):
    caplog.set_level(logging.WARNING, logger="pipelines.webhooks")
    limited = dataclasses.replace(config, max_header_bytes=4096, refusal_log_interval=600)
    with running_receiver(config=limited) as url:
        for _ in range(50):
            with _connect(url) as sock:
                sock.sendall(b"POST /webhooks HTTP/1.1\r\nhost: x\r\nx-pad: " + b"a" * 8192 + b"\r\n")
                assert _read_until_closed(sock).startswith(b"HTTP/1.1 431 ")
    # The first refusal at once, the other 49 in one line when the receiver stops.
    lines = [r.getMessage() for r in caplog.records if r.name == "pipelines.webhooks"]
    assert lines == [
        "webhooks: refused 1 request(s): too large: headers over the header limit (431, closed)"
        " (one line per kind per 600 s)",
        "webhooks: refused 49 request(s): too large: headers over the header limit (431, closed)"
        " (one line per kind per 600 s)",
    ]


def test_a_flood_of_bad_signatures_is_logged_one_line_per_delivery_and_never_counted(config, caplog):
    caplog.set_level(logging.INFO, logger="pipelines.webhooks")
    with running_receiver(config=config) as url, httpx.Client(base_url=url) as client:
        for n in range(50):
            assert deliver(client, ISSUE, delivery_id=f"forged-{n}", secret=b"wrong").status_code == 401
    deliveries = [r.getMessage() for r in caplog.records if r.name == "pipelines.webhooks.deliveries"]
    assert [line.split(" bytes=")[0] for line in deliveries] == [
        f"delivery id=forged-{n} event=issues outcome=bad_signature status=401" for n in range(50)
    ]
    assert [r for r in caplog.records if r.name == "pipelines.webhooks"] == []
