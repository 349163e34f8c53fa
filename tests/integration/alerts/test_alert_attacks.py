"""Hostile alert channels and a hostile outbox file, on loopback: a peer that takes the alert
whole and hangs up unanswered (HTTP and SMTP), redirects, an https URL to a server that never
speaks, endless 1xx answers, a length-less HTTP/1.0 refusal, many slow targets at once; and the
outbox made a FIFO, a huge file, a directory, mistyped JSON or a future version's file. Each
costs a bounded time, is said in one line, and no alert is sent twice or lost unsaid.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from pipelines.alerts import OUTBOX_NAME, AlertConfig, Outbox, deliver, parse_targets, retry_kept, run_failed
from tests._alerts import HOOK_KEY, _read_request, webhook_server

DEADLINE = 1.0
# Past the deadline: the exchange's 2 s to unwind, and a loaded machine's scheduling (the bound
# the promise states, not a measurement).
SLACK = 4.0


def _alert(cause: str = "boom"):
    return run_failed(job="usage_daily_job", days="2026-11-20", cause=cause, log="full log: x", scopes=(), link=None)


def _config(*urls: str) -> AlertConfig:
    return AlertConfig(targets=parse_targets(",".join(urls)), timeout=DEADLINE)


Handler = Callable[[socket.socket, threading.Event, list[bytes]], None]


@contextmanager
def _peer(handle: Handler) -> Iterator[tuple[int, list[bytes]]]:
    """A loopback server running `handle` on each connection; every loop ends with the block."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)
    stop = threading.Event()
    received: list[bytes] = []
    threads: list[threading.Thread] = []

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue

            def run(conn: socket.socket = conn) -> None:
                with conn:
                    conn.settimeout(0.1)
                    handle(conn, stop, received)

            thread = threading.Thread(target=run, daemon=True)
            thread.start()
            threads.append(thread)

    server = threading.Thread(target=serve, daemon=True)
    server.start()
    try:
        yield listener.getsockname()[1], received
    finally:
        stop.set()
        server.join(timeout=10)
        for thread in threads:
            thread.join(timeout=10)
        listener.close()


def _send(conn: socket.socket, data: bytes) -> None:
    with contextlib.suppress(OSError):  # the client gave up: what the test is about
        conn.sendall(data)


def _hang_up_after_reading(conn: socket.socket, stop: threading.Event, received: list[bytes]) -> None:
    received.append(_read_request(conn, stop))


def _smtp_hang_up_after_data(conn: socket.socket, stop: threading.Event, received: list[bytes]) -> None:
    """An SMTP server that takes the message whole, then closes without its answer."""
    _send(conn, b"220 hostile ESMTP\r\n")
    data = b""
    in_data = False
    while not stop.is_set():
        try:
            chunk = conn.recv(65536)
        except TimeoutError:
            continue
        if not chunk:
            return
        data += chunk
        while b"\r\n" in data and not in_data:
            line, data = data.split(b"\r\n", 1)
            verb = line[:4].upper()
            if verb == b"EHLO":
                _send(conn, b"250 hostile\r\n")
            elif verb == b"DATA":
                in_data = True
                _send(conn, b"354 go on\r\n")
            else:
                _send(conn, b"250 OK\r\n")
        if in_data and b"\r\n.\r\n" in data:
            received.append(data)
            return  # hangs up: no 250 for the message


def _url(port: int) -> str:
    return f"http://127.0.0.1:{port}/services/{HOOK_KEY}"


def test_a_webhook_that_reads_the_alert_whole_and_hangs_up_unanswered_is_reported_sent_and_never_sent_again(
    tmp_path,
):
    outbox = Outbox(tmp_path / OUTBOX_NAME)
    with _peer(_hang_up_after_reading) as (port, received):
        (delivery,) = deliver(_config(_url(port)), _alert(), outbox=outbox)
        retry_kept(_config(_url(port)), Outbox(outbox.path))  # the next command
    assert b"usage_daily_job failed" in received[0]
    assert (delivery.arrived, delivery.sent, delivery.kept) == (False, True, False)
    assert delivery.problem.startswith("sent; no answer")
    assert len(received) == 1 and not outbox.path.exists()


def test_an_smtp_server_that_takes_the_message_and_hangs_up_unanswered_is_reported_sent_and_never_sent_again(
    tmp_path,
):
    outbox = Outbox(tmp_path / OUTBOX_NAME)
    with _peer(_smtp_hang_up_after_data) as (port, received):
        config = _config(f"smtp://127.0.0.1:{port}?to=ops@example.org&from=metrics@example.org")
        (delivery,) = deliver(config, _alert(), outbox=outbox)
        retry_kept(config, Outbox(outbox.path))
    assert b"usage_daily_job failed" in received[0]
    assert (delivery.arrived, delivery.sent, delivery.kept) == (False, True, False)
    assert len(received) == 1 and not outbox.path.exists()


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_is_never_followed_elsewhere_and_costs_no_deadline(status, tmp_path):
    def redirect(conn: socket.socket, stop: threading.Event, received: list[bytes]) -> None:
        received.append(_read_request(conn, stop))
        _send(conn, f"HTTP/1.1 {status} Moved\r\nlocation: http://192.0.2.1/x\r\ncontent-length: 0\r\n\r\n".encode())

    with _peer(redirect) as (port, received):
        started = time.monotonic()
        (delivery,) = deliver(_config(_url(port)), _alert(), outbox=Outbox(tmp_path / OUTBOX_NAME))
        seconds = time.monotonic() - started
    assert len(received) == 1 and seconds < DEADLINE
    assert (delivery.arrived, delivery.kept) == (False, False) and delivery.problem.startswith(f"HTTP {status}")


def _silent(conn: socket.socket, stop: threading.Event, received: list[bytes]) -> None:
    stop.wait()


def _endless_continue(conn: socket.socket, stop: threading.Event, received: list[bytes]) -> None:
    received.append(_read_request(conn, stop))
    while not stop.wait(0.05):
        _send(conn, b"HTTP/1.1 100 Continue\r\n\r\n")


def _http10_endless_refusal(conn: socket.socket, stop: threading.Event, received: list[bytes]) -> None:
    _read_request(conn, stop)
    _send(conn, b"HTTP/1.0 500 Oops\r\n\r\n")
    while not stop.wait(0.2):
        _send(conn, b"x")


@pytest.mark.parametrize(
    ("handle", "scheme", "sent", "kept"),
    [
        (_silent, "https", False, True),  # TLS handshake never answered
        (_endless_continue, "http", True, False),
        (_http10_endless_refusal, "http", False, True),  # a 5xx trickling a length-less body
    ],
    ids=["tls-handshake-stalled", "endless-100-continue", "http10-refusal-without-length"],
)
def test_a_stalling_webhook_costs_one_deadline_and_is_said_as_what_it_is(handle, scheme, sent, kept, tmp_path):
    with _peer(handle) as (port, _):
        started = time.monotonic()
        (delivery,) = deliver(
            _config(f"{scheme}://127.0.0.1:{port}/services/{HOOK_KEY}"), _alert(), outbox=Outbox(tmp_path / "o.json")
        )
        seconds = time.monotonic() - started
    assert seconds < DEADLINE + SLACK
    assert (delivery.arrived, delivery.sent, delivery.kept) == (False, sent, kept)


def test_many_slow_targets_cost_one_deadline_each_per_command_however_many_alerts(tmp_path):
    outbox = Outbox(tmp_path / OUTBOX_NAME)
    with _peer(_silent) as (a, _), _peer(_silent) as (b, _), _peer(_silent) as (c, _):
        config = _config(_url(a), _url(b), _url(c))
        started = time.monotonic()
        for n in range(3):  # three alerts of one command: later ones wait in the outbox
            deliver(config, _alert(f"cause {n}"), outbox=outbox)
        seconds = time.monotonic() - started
    # The bound per command: targets times (deadline + the 2 s grace), never times alerts.
    assert seconds < 3 * (DEADLINE + 2.0) + SLACK


def _kept_one(tmp_path: Path) -> Outbox:
    """An outbox file holding one alert kept for a closed port."""
    outbox = Outbox(tmp_path / OUTBOX_NAME)
    closed = socket.create_server(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()
    deliver(_config(_url(port)), _alert("kept"), outbox=outbox)
    assert outbox.path.exists()
    return outbox


@pytest.mark.parametrize(
    "damage",
    [
        lambda path: path.write_text(
            '{"version": 1, "alerts": [{"id": 1, "since": 2, "targets": 3, "title": 4, "lines": 5, "link": {"x": 1}}]}'
        ),
        lambda path: path.write_text('{"version": 1, "alerts": {"id": "x"}}'),
        lambda path: path.write_text("[1, 2, 3]"),
        lambda path: path.write_bytes(b"\xff\xfe not utf-8"),
        lambda path: path.write_bytes(b'{"version": 1, "alerts": [' + b"[" * 100_000 + b"]"),
    ],
    ids=["mistyped-fields", "alerts-not-a-list", "not-an-object", "not-utf8", "deeply-nested"],
)
def test_a_corrupted_outbox_is_set_aside_in_one_line_and_the_next_alert_is_kept(damage, tmp_path, caplog):
    outbox = Outbox(tmp_path / OUTBOX_NAME)
    damage(outbox.path)
    with caplog.at_level(logging.WARNING, logger="pipelines.alerts"), webhook_server() as hook:
        (delivery,) = deliver(_config(hook.url), _alert("after"), outbox=outbox)
    assert delivery.arrived and len(hook.texts) == 1
    assert len(list(tmp_path.glob(f"{OUTBOX_NAME}.unreadable-*"))) == 1
    assert any("was unreadable" in r.getMessage() for r in caplog.records)


def test_an_outbox_of_a_future_version_is_set_aside_never_rewritten_as_an_older_one(tmp_path, caplog):
    outbox = Outbox(tmp_path / OUTBOX_NAME)
    future = '{"version": 2, "alerts": [], "shape": "new"}'
    outbox.path.write_text(future)
    with caplog.at_level(logging.WARNING, logger="pipelines.alerts"):
        _kept_one(tmp_path)
    (aside,) = tmp_path.glob(f"{OUTBOX_NAME}.unreadable-*")
    assert aside.read_text() == future  # whole, for the newer version to read
    assert '"version": 1' in outbox.path.read_text()
    assert any("version 2" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("kind", ["fifo", "huge", "symlink-to-device"])
def test_an_outbox_that_is_no_small_regular_file_never_holds_a_command(kind, tmp_path, caplog):
    outbox = Outbox(tmp_path / OUTBOX_NAME)
    if kind == "fifo":
        os.mkfifo(outbox.path)  # opening it to read would wait for a writer for ever
    elif kind == "huge":
        with outbox.path.open("wb") as out:  # sparse: 4 GB read whole would be 4 GB of memory
            out.truncate(4 << 30)
    else:
        outbox.path.symlink_to("/dev/zero")  # endless
    result: list[object] = []
    worker = threading.Thread(
        target=lambda: result.append(deliver(_config(_url(1)), _alert(), outbox=outbox)), daemon=True
    )
    with caplog.at_level(logging.WARNING, logger="pipelines.alerts"):
        worker.start()
        worker.join(DEADLINE + SLACK)
    assert not worker.is_alive() and result
    assert any("was unreadable" in r.getMessage() for r in caplog.records)
    # The new alert kept in a small file of its own.
    assert outbox.path.is_file() and not outbox.path.is_symlink() and outbox.path.stat().st_size < 4096


def test_an_outbox_that_is_a_directory_is_set_aside_in_one_line_and_the_alert_kept(tmp_path, caplog):
    outbox = Outbox(tmp_path / OUTBOX_NAME)
    outbox.path.mkdir()
    (outbox.path / "x").write_text("x")
    with caplog.at_level(logging.WARNING, logger="pipelines.alerts"):
        (delivery,) = deliver(_config(_url(1)), _alert(), outbox=outbox)
    assert delivery.kept and outbox.path.is_file()
    assert any("not a regular file" in r.getMessage() for r in caplog.records)
    assert all("\n" not in r.getMessage() for r in caplog.records)


def _smtp_dripping_each_reply(conn: socket.socket, stop: threading.Event, received: list[bytes]) -> None:
    """Every reply a byte per 0.2 s: each read is quick to renew, the exchange endless."""

    def drip(reply: bytes) -> bool:
        for byte in reply:
            if stop.wait(0.2):
                return False
            _send(conn, bytes([byte]))
        return True

    if not drip(b"220 slow\r\n"):
        return
    while not stop.is_set():
        try:
            chunk = conn.recv(65536)
        except TimeoutError:
            continue
        if not chunk or not drip(b"250 OK\r\n"):
            return


def _starttls_then_silent(conn: socket.socket, stop: threading.Event, received: list[bytes]) -> None:
    """Offers STARTTLS, says go ahead, and never speaks TLS."""
    _send(conn, b"220 hostile ESMTP\r\n")
    while not stop.is_set():
        try:
            line = conn.recv(65536)
        except TimeoutError:
            continue
        if not line:
            return
        if line.upper().startswith(b"EHLO"):
            _send(conn, b"250-hostile\r\n250 STARTTLS\r\n")
        elif line.upper().startswith(b"STARTTLS"):
            _send(conn, b"220 go ahead\r\n")
            stop.wait()
            return


@pytest.mark.parametrize(
    "handle", [_smtp_dripping_each_reply, _starttls_then_silent], ids=["each-reply-dripped", "starttls-stalled"]
)
def test_a_stalling_smtp_server_costs_one_deadline_and_the_alert_is_kept(handle, tmp_path):
    with _peer(handle) as (port, _):
        config = _config(f"smtp://alerts:pw-0123456789@127.0.0.1:{port}?to=ops@example.org&from=m@example.org")
        started = time.monotonic()
        (delivery,) = deliver(config, _alert(), outbox=Outbox(tmp_path / OUTBOX_NAME))
        seconds = time.monotonic() - started
    assert seconds < DEADLINE + SLACK
    assert (delivery.arrived, delivery.sent, delivery.kept) == (False, False, True)
    assert "pw-0123456789" not in (tmp_path / OUTBOX_NAME).read_text()


def test_a_webhook_that_never_reads_a_large_alert_costs_one_deadline_and_keeps_it(tmp_path):
    def never_reads(conn: socket.socket, stop: threading.Event, received: list[bytes]) -> None:
        stop.wait()

    # 8 MB: more than the kernel's buffers on both sides hold, so it cannot go out whole unread.
    with _peer(never_reads) as (port, _):
        started = time.monotonic()
        (delivery,) = deliver(_config(_url(port)), _alert("x" * (8 << 20)), outbox=Outbox(tmp_path / OUTBOX_NAME))
        seconds = time.monotonic() - started
    assert seconds < DEADLINE + SLACK
    assert (delivery.arrived, delivery.sent, delivery.kept) == (False, False, True)


def test_a_host_name_that_does_not_resolve_costs_at_most_one_deadline_and_is_kept(tmp_path):
    started = time.monotonic()
    (delivery,) = deliver(
        _config(f"https://alerts.invalid/services/{HOOK_KEY}"), _alert(), outbox=Outbox(tmp_path / OUTBOX_NAME)
    )
    assert time.monotonic() - started < DEADLINE + SLACK
    assert (delivery.arrived, delivery.sent, delivery.kept) == (False, False, True)
    assert HOOK_KEY not in delivery.line() and HOOK_KEY not in (tmp_path / OUTBOX_NAME).read_text()
