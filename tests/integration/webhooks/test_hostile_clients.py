"""Clients that stall, overflow or flood: each is answered and closed within the receiver's limits."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import httpx

from pipelines.webhooks import slots
from pipelines.webhooks.app import running_receiver
from pipelines.webhooks.segments import SpoolRecord
from pipelines.webhooks.spool import Spool

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


def _connect_from(base_url: str, source: str) -> socket.socket:
    """A connection from another loopback address (all of 127.0.0.0/8 is this machine): another client."""
    parts = urlsplit(base_url)
    return socket.create_connection((parts.hostname, parts.port), timeout=WAIT, source_address=(source, 0))


def _still_open(sock: socket.socket) -> bool:
    """Nothing received and not closed: recv would block."""
    sock.setblocking(False)
    try:
        sock.recv(1, socket.MSG_PEEK)
    except BlockingIOError:
        return True
    finally:
        sock.setblocking(True)
    return False


def _wait_for(condition, what: str) -> None:
    deadline = time.monotonic() + WAIT  # a bound on waiting for the receiver, never a measurement
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(what)
        time.sleep(0.02)


def test_at_the_cap_the_oldest_idle_connections_make_room_and_a_signed_delivery_lands(config):
    limited = dataclasses.replace(config, max_connections=10)
    with running_receiver(config=limited) as url:
        idle = []
        try:
            idle += [_connect(url) for _ in range(15)]  # accepted in this order
            # Each one over the cap closed the oldest waiting one: the first five, answered 503.
            answers = [_read_until_closed(sock) for sock in idle[:5]]
            assert all(answer.startswith(b"HTTP/1.1 503 ") for answer in answers)
            assert all(_still_open(sock) for sock in idle[5:])
            with httpx.Client(base_url=url, timeout=WAIT) as client:
                assert deliver(client, ISSUE, delivery_id="beside-ten-idle").status_code == 200
            # It took the slot of the oldest of the ten.
            assert _read_until_closed(idle[5]).startswith(b"HTTP/1.1 503 ")
        finally:
            for sock in idle:
                sock.close()


def test_a_head_still_trickling_keeps_no_slot_it_began_waiting_for_first(config):
    """Bytes of an unfinished head do not renew a connection's place: it is still the oldest."""
    limited = dataclasses.replace(config, max_connections=3)
    with running_receiver(config=limited) as url:
        trickler, *others = [_connect(url) for _ in range(3)]
        try:
            trickler.sendall(b"POST /webhooks HTTP/1.1\r\nhost: x\r\n")
            with httpx.Client(base_url=url, timeout=WAIT) as client:
                assert deliver(client, ISSUE, delivery_id="past-a-trickler").status_code == 200
            assert _read_until_closed(trickler).startswith(b"HTTP/1.1 503 ")
            assert all(_still_open(sock) for sock in others[1:])
        finally:
            for sock in (trickler, *others):
                sock.close()


# A head that looks like a signed delivery: its signature is only checked once the body is in.
SIGNED_LOOKING = b"x-hub-signature-256: sha256=" + b"0" * 64 + b"\r\n"


def _start_bodies(url: str, count: int, *, signed: bool) -> list[socket.socket]:
    """Connections each with a complete head and the first byte of a 100-byte body."""
    started = []
    for _ in range(count):
        sock = _connect(url)
        sock.sendall(
            b"POST /webhooks HTTP/1.1\r\nhost: x\r\ncontent-length: 100\r\n"
            + (SIGNED_LOOKING if signed else b"")
            + b"\r\n{"
        )
        started.append(sock)
    return started


class _HeldSpool(Spool):
    """A spool whose writes wait until the test lets them go: requests stay being answered."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.go = threading.Event()
        self.waiting = 0

    async def append(self, record: SpoolRecord) -> bool:
        self.waiting += 1
        await asyncio.to_thread(self.go.wait, WAIT)
        return await super().append(record)


def test_when_every_slot_holds_a_request_being_answered_one_more_is_answered_503_at_once(config, spool_dir):
    spool = _HeldSpool(directory=spool_dir)
    limited = dataclasses.replace(config, max_connections=4)
    with running_receiver(config=limited, spool=spool) as url, ThreadPoolExecutor(4) as senders:

        def send(n: int) -> int:
            with httpx.Client(base_url=url, timeout=WAIT) as client:
                return deliver(client, ISSUE, delivery_id=f"held-{n}").status_code

        answered = [senders.submit(send, n) for n in range(4)]
        _wait_for(lambda: spool.waiting == 4, "the four deliveries never reached the spool")
        with _connect(url) as extra:
            assert _read_until_closed(extra).startswith(b"HTTP/1.1 503 ")
        spool.go.set()
        assert [future.result(timeout=WAIT) for future in answered] == [200] * 4


def test_at_the_cap_a_body_whose_head_does_not_look_signed_gives_up_its_slot_at_once(config):
    limited = dataclasses.replace(config, max_connections=4, body_timeout=WAIT)
    with running_receiver(config=limited) as url:
        unsigned = _start_bodies(url, 4, signed=False)
        try:
            with httpx.Client(base_url=url, timeout=WAIT) as client:
                assert deliver(client, ISSUE, delivery_id="past-unsigned-bodies").status_code == 200
            assert _read_until_closed(unsigned[0]).startswith(b"HTTP/1.1 503 ")
            assert all(_still_open(sock) for sock in unsigned[1:])
        finally:
            for sock in unsigned:
                sock.close()


def test_at_the_cap_the_slowest_signed_looking_body_gives_up_its_slot(config):
    """Forged signatures cannot hold the receiver: a body still arriving is judged by its pace."""
    limited = dataclasses.replace(config, max_connections=4, body_timeout=WAIT)
    with running_receiver(config=limited) as url:
        trickling = _start_bodies(url, 4, signed=True)
        try:
            for sock in trickling[1:]:  # the first trickles slowest: one byte only
                sock.sendall(b'"a": 1, "b": 2, "c": 3,')
            time.sleep(slots._JUDGED_AFTER + 0.2)  # a body is judged by its pace once it has had time to show one
            with httpx.Client(base_url=url, timeout=WAIT) as client:
                assert deliver(client, ISSUE, delivery_id="past-forged-bodies").status_code == 200
            assert _read_until_closed(trickling[0]).startswith(b"HTTP/1.1 503 ")
            assert all(_still_open(sock) for sock in trickling[1:])
        finally:
            for sock in trickling:
                sock.close()


def test_one_client_over_its_waiting_limit_closes_its_own_oldest_never_another_clients(config):
    limited = dataclasses.replace(config, max_connections=100, max_waiting_per_client=5)
    with running_receiver(config=limited) as url:
        other = [_connect_from(url, "127.0.0.2") for _ in range(3)]
        flood = []
        try:
            flood += [_connect_from(url, "127.0.0.1") for _ in range(8)]
            assert all(_read_until_closed(sock).startswith(b"HTTP/1.1 503 ") for sock in flood[:3])
            assert all(_still_open(sock) for sock in flood[3:] + other)
        finally:
            for sock in flood + other:
                sock.close()


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


def test_forged_heads_declaring_the_whole_memory_budget_give_it_up_to_a_signed_delivery(config):
    """Two forged heads each declare a body at the size cap, which reserves the whole budget
    before a byte is read, and trickle it: a delivery needing the budget gets it from the slowest."""
    # Bodies over 64 KB: smaller ones never wait for the budget.
    limited = dataclasses.replace(
        config, max_body_bytes=256 * 1024, max_body_memory_bytes=2 * 256 * 1024, body_timeout=WAIT
    )
    with running_receiver(config=limited) as url:
        holders = []
        try:
            head = b"POST /webhooks HTTP/1.1\r\nhost: x\r\ncontent-length: %d\r\n" % limited.max_body_bytes
            for n in range(2):  # the first has sent the least
                holders.append(_connect(url))
                holders[-1].sendall(head + SIGNED_LOOKING + b"\r\n{" + b" " * n)
            time.sleep(0.3)  # both heads are in and hold their reservations
            with httpx.Client(base_url=url, timeout=WAIT) as client:
                started = time.monotonic()
                large = {**ISSUE, "body": "x" * 100_000}
                assert deliver(client, large, delivery_id="past-budget-holders").status_code == 200
                # A bound the issue asks for (a signed delivery within a second), generous here:
                # before, it waited the whole body timeout for the budget, then got 503.
                assert time.monotonic() - started < 1.0
            assert _read_until_closed(holders[0]).startswith(b"HTTP/1.1 503 ")
        finally:
            for sock in holders:
                sock.close()
