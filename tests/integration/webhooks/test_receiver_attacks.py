"""Connection mixes the other hostile-client tests do not cover, at the connection cap: clients
that never read their answers, pipelined floods, complete GET or unsigned POST heads held on
keep-alive, HEAD/OPTIONS floods, wrong-signature POSTs at full speed, and clients from
127.0.0.2..127.0.0.9 each at its per-client limit. Each time a correctly signed delivery still
lands within a second, the receiver's memory stays bounded, and refusals are counted lines.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

import httpx

from pipelines.webhooks.app import running_receiver
from pipelines.webhooks.verify import sign

from .conftest import deliver

ISSUE = {"action": "opened", "repository": {"full_name": "acme/widgets"}}
# A bound on waiting for the receiver to act, far above its timeouts: never a measurement.
WAIT = 30
GET = b"GET /healthz HTTP/1.1\r\nhost: x\r\n\r\n"


def _connect(url: str, source: str = "127.0.0.1", *, small_window: bool = False) -> socket.socket:
    parts = urlsplit(url)
    sock = socket.socket()
    if small_window:  # the answers fill the receiver's buffers as soon as possible
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.bind((source, 0))
    sock.settimeout(WAIT)
    sock.connect((parts.hostname, parts.port))
    return sock


def _send_until_refused(sock: socket.socket, data: bytes, *, rounds: int) -> None:
    """Send `data` `rounds` times (bounded) or until the receiver stops taking it."""
    sock.settimeout(0.2)
    for _ in range(rounds):
        try:
            sock.sendall(data)
        except (TimeoutError, OSError):
            return


def _closed_by_receiver(sock: socket.socket) -> bool:
    """Whether the receiver closed it, reading (and dropping) whatever answers it sent first."""
    sock.settimeout(WAIT)
    deadline = time.monotonic() + WAIT
    try:
        while time.monotonic() < deadline:
            if not sock.recv(1 << 20):
                return True
    except (ConnectionResetError, TimeoutError):
        return True
    return False


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096 / (1 << 20)


def _lands_within_a_second(url: str, delivery_id: str) -> None:
    with httpx.Client(base_url=url, timeout=WAIT) as client:
        started = time.monotonic()
        assert deliver(client, ISSUE, delivery_id=delivery_id).status_code == 200
        # The bound the issue asks for, generous: before, this delivery got 503.
        assert time.monotonic() - started < 1.0


@contextmanager
def _held(socks: list[socket.socket]) -> Iterator[list[socket.socket]]:
    try:
        yield socks
    finally:
        for sock in socks:
            sock.close()


def test_clients_pipelining_requests_and_never_reading_answers_hold_no_slot_and_no_memory(config, caplog):
    caplog.set_level(logging.WARNING, logger="pipelines.webhooks")
    limited = dataclasses.replace(config, max_connections=10, refusal_log_interval=600)
    with running_receiver(config=limited) as url, _held([]) as flood:
        time.sleep(0.3)
        before = _rss_mb()
        for _ in range(10):  # every slot: thousands of requests each, no answer ever read
            flood.append(_connect(url, small_window=True))
            _send_until_refused(flood[-1], GET * 1000, rounds=8)
        time.sleep(0.5)  # what was sent is parsed
        # Before, each queued every request it sent (about 1 KB each): 2 MB a connection.
        assert _rss_mb() - before < 10
        _lands_within_a_second(url, "past-pipelined-floods")
        assert all(_closed_by_receiver(sock) for sock in flood)
    lines = [r.getMessage() for r in caplog.records if r.name == "pipelines.webhooks"]
    assert lines and all("more than 8 requests sent ahead of their answers (closed)" in line for line in lines)
    assert len(lines) == 2  # the first at once, the other nine summed when the receiver stops


def _shrink_send_buffers(port: int) -> None:
    """A slow network's worth of buffering on the receiver's side: its listening socket's send
    buffer made small (accepted connections inherit it), so a few hundred unread answers fill it."""
    for fd in map(int, os.listdir("/proc/self/fd")):
        try:
            sock = socket.socket(fileno=os.dup(fd))
        except OSError:
            continue
        with sock:
            try:
                listening = sock.type == socket.SOCK_STREAM and sock.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)
                if listening and sock.getsockname()[1] == port:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
                    return
            except (OSError, IndexError, TypeError):
                continue
    raise AssertionError("the receiver's listening socket was not found")


def test_clients_asking_one_request_at_a_time_and_never_reading_are_closed_and_a_delivery_lands(config, caplog):
    caplog.set_level(logging.WARNING, logger="pipelines.webhooks")
    limited = dataclasses.replace(config, max_connections=10, header_timeout=2.0, refusal_log_interval=600)
    with running_receiver(config=limited) as url:
        _shrink_send_buffers(urlsplit(url).port)
        with _held([_connect(url, small_window=True) for _ in range(10)]) as flood:
            for _ in range(700):  # one request each, apart: their answers pile up unread
                for sock in flood:
                    _send_until_refused(sock, GET, rounds=1)
                time.sleep(0.01)
            # Before, every slot was "being answered" for ever: this one got 503.
            _lands_within_a_second(url, "past-unread-answers")
            assert all(_closed_by_receiver(sock) for sock in flood)
    kinds = {
        r.getMessage().split(": ", 2)[2].split(" (one line")[0]
        for r in caplog.records
        if r.name == "pipelines.webhooks"
    }
    unread = {
        "connection not reading its answers closed to make room at the connection limit",
        "answers not read by the client within the header timeout (closed)",
    }
    # Closed for not reading (to make room, or at the deadline), or, once their answers stall,
    # for the requests they queue behind them: which first depends on timing.
    assert kinds & unread and kinds <= unread | {"more than 8 requests sent ahead of their answers (closed)"}


def test_complete_get_and_unsigned_post_heads_held_on_keep_alive_make_room_for_a_signed_delivery(config):
    limited = dataclasses.replace(config, max_connections=20)
    unsigned = b"POST /webhooks HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}"
    with running_receiver(config=limited) as url, _held([]) as held:
        for n in range(20):
            held.append(_connect(url))
            held[-1].sendall(GET if n % 2 else unsigned)  # each answered, then held open, idle
        time.sleep(1.2)  # idle for over a second: the first to make room
        _lands_within_a_second(url, "past-held-keep-alive")


def test_head_and_options_floods_and_wrong_signatures_at_full_speed_never_keep_a_signed_delivery_out(config):
    limited = dataclasses.replace(config, max_connections=20)
    body = b'{"action": "opened", "repository": {"full_name": "acme/widgets"}}'
    forged = (
        b"POST /webhooks HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nx-service-event: issues\r\n"
        b"x-service-delivery: forged\r\nx-hub-signature-256: "
        + sign(secret=b"wrong", body=body).encode()
        + b"\r\ncontent-length: %d\r\n\r\n" % len(body)
        + body
    )
    kinds = [b"HEAD /webhooks HTTP/1.1\r\nhost: x\r\n\r\n", b"OPTIONS /webhooks HTTP/1.1\r\nhost: x\r\n\r\n", forged]
    with running_receiver(config=limited) as url:
        stop = threading.Event()
        answers: list[bytes] = []

        def flood(request: bytes) -> None:
            for _ in range(2000):  # bounded: each a new connection, reading its answer
                if stop.is_set():
                    return
                try:
                    with _connect(url) as sock:
                        sock.sendall(request)
                        answers.append(sock.recv(256)[:12])
                except OSError:
                    continue

        floods = [threading.Thread(target=flood, args=(kinds[n % 3],), daemon=True) for n in range(6)]
        for thread in floods:
            thread.start()
        try:
            time.sleep(0.5)
            for n in range(5):
                _lands_within_a_second(url, f"amid-floods-{n}")
        finally:
            stop.set()
            for thread in floods:
                thread.join(timeout=WAIT)
    assert b"HTTP/1.1 401" in answers and b"HTTP/1.1 405" in answers


def test_eight_client_addresses_each_at_its_waiting_limit_leave_a_signed_delivery_landing(config):
    limited = dataclasses.replace(config, max_connections=60, max_waiting_per_client=10)
    with running_receiver(config=limited) as url, _held([]) as held:
        for n in range(2, 10):  # 127.0.0.2 .. 127.0.0.9, each one over its limit
            held += [_connect(url, f"127.0.0.{n}") for _ in range(11)]
        time.sleep(1.2)
        _lands_within_a_second(url, "past-eight-clients")


SIGNED_LOOKING = b"x-hub-signature-256: sha256=" + b"0" * 64 + b"\r\n"


def test_bodies_arriving_at_exactly_the_accepted_pace_holding_the_whole_budget_never_hold_a_small_delivery(config):
    """Forged heads declare the whole memory budget between them and send at a pace that arrives
    in time (over 64 KB/s, complete before the body timeout), so none of them can be judged a
    trickle: a small signed delivery still lands within a second."""
    size = 512 * 1024
    limited = dataclasses.replace(
        config, max_body_bytes=size, max_body_memory_bytes=4 * size, body_timeout=WAIT, max_connections=20
    )
    with running_receiver(config=limited) as url, _held([]) as pacers:
        stop = threading.Event()
        head = b"POST /webhooks HTTP/1.1\r\nhost: x\r\ncontent-length: %d\r\n" % size + SIGNED_LOOKING + b"\r\n"
        for _ in range(4):
            pacers.append(_connect(url))
            pacers[-1].sendall(head)

        def pace() -> None:  # 8 KB each 0.1 s: 80 KB/s, the body complete in 6.4 s, within the timeout
            for _ in range(size // 8192 - 1):  # never the last bytes: held until the test ends
                if stop.wait(0.1):
                    return
                for sock in pacers:
                    with contextlib.suppress(OSError):
                        sock.sendall(b" " * 8192)

        pacer = threading.Thread(target=pace, daemon=True)
        pacer.start()
        try:
            time.sleep(1.0)  # judged by their pace: in time, so never closed for another
            _lands_within_a_second(url, "past-paced-bodies")
        finally:
            stop.set()
            pacer.join(timeout=WAIT)
