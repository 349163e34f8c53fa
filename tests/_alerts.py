"""Loopback stand-ins for an alert channel: an incoming webhook (HTTP) and an SMTP server
(aiosmtpd), each recording what arrived; and a slow peer of either kind (a socket server that
drips its answer a byte at a time, or takes the request and never answers). All bind 127.0.0.1 only."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from tests.e2e.chaos import free_port

HOOK_KEY = "T0000/B0000/hook-key-0123456789"  # the incoming webhook's path: its secret
SMTP_PASSWORD = "smtp-pass-0123456789"


@dataclass
class Hook:
    url: str
    texts: list[str] = field(default_factory=list)


@contextmanager
def webhook_server(port: int = 0) -> Iterator[Hook]:
    """An incoming webhook at /services/<HOOK_KEY> taking Slack's JSON; any other path is 404."""
    hook = Hook(url="")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.path != f"/services/{HOOK_KEY}":
                self.send_response(404)
                self.end_headers()
                return
            hook.texts.append(json.loads(body)["text"])
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:  # the test's output stays the test's
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    hook.url = f"http://127.0.0.1:{server.server_address[1]}/services/{HOOK_KEY}"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield hook
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@dataclass
class Mailbox:
    url: str
    port: int
    messages: list[EmailMessage] = field(default_factory=list)
    logins: list[str] = field(default_factory=list)

    def texts(self) -> list[str]:
        return [f"{m['Subject'].strip()}\n{m.get_content()}" for m in self.messages]


@contextmanager
def smtp_server(*, answer_data_after: float = 0.0) -> Iterator[Mailbox]:
    """An SMTP server that takes a login (user `alerts`, SMTP_PASSWORD) over loopback; with
    `answer_data_after`, it takes a message whole and waits that long before its answer."""
    port = free_port()
    box = Mailbox(
        url=f"smtp://alerts:{SMTP_PASSWORD}@127.0.0.1:{port}?to=ops@example.org&from=metrics@example.org", port=port
    )

    class Handler:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            box.messages.append(message_from_bytes(envelope.content, policy=policy.default))  # type: ignore[arg-type]
            await asyncio.sleep(answer_data_after)
            return "250 OK"

    def authenticate(server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        ok = isinstance(data, LoginPassword) and data.login == b"alerts" and data.password == SMTP_PASSWORD.encode()
        if ok:
            box.logins.append(data.login.decode())
        return AuthResult(success=ok)

    controller = Controller(
        Handler(), hostname="127.0.0.1", port=port, authenticator=authenticate, auth_require_tls=False
    )
    controller.start()
    try:
        yield box
    finally:
        controller.stop()


@dataclass
class SlowPeer:
    url: str
    port: int
    received: list[bytes] = field(default_factory=list)  # what each connection sent, as far as read
    connections: int = 0


_HTTP_ANSWER = b"HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n\r\nok"
_SMTP_BANNER = b"220 slow.example.org ESMTP at your service\r\n"


@contextmanager
def slow_peer(kind: Literal["drip", "silent", "smtp-drip"], *, interval: float = 0.5) -> Iterator[SlowPeer]:
    """A peer on loopback that is slow on purpose: `drip` reads an HTTP request whole and answers
    200 one byte every `interval` s; `silent` reads it and never answers; `smtp-drip` sends an
    SMTP greeting one byte every `interval` s. Every loop ends when the block does."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)
    port = listener.getsockname()[1]
    peer = SlowPeer(url=f"http://127.0.0.1:{port}/services/{HOOK_KEY}", port=port)
    stop = threading.Event()

    def handle(conn: socket.socket) -> None:
        with conn:
            if kind == "smtp-drip":
                _drip(conn, _SMTP_BANNER, interval, stop)
                return
            peer.received.append(_read_request(conn, stop))
            if kind == "drip":
                _drip(conn, _HTTP_ANSWER, interval, stop)
            else:
                stop.wait()  # holds the connection, answering nothing, until the test ends

    def serve() -> None:
        handlers = []
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            peer.connections += 1
            handler = threading.Thread(target=handle, args=(conn,), daemon=True)
            handler.start()
            handlers.append(handler)
        for handler in handlers:
            handler.join(timeout=10)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield peer
    finally:
        stop.set()
        thread.join(timeout=15)
        listener.close()


def _read_request(conn: socket.socket, stop: threading.Event) -> bytes:
    """An HTTP request's head and its Content-Length of body, or what came before the test ended."""
    conn.settimeout(0.1)
    data = b""
    while not stop.is_set():
        head, _, body = data.partition(b"\r\n\r\n")
        if _:
            length = next(
                (
                    int(line.split(b":")[1])
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                ),
                0,
            )
            if len(body) >= length:
                return data
        try:
            chunk = conn.recv(65536)
        except TimeoutError:
            continue
        if not chunk:
            return data
        data += chunk
    return data


def _drip(conn: socket.socket, answer: bytes, interval: float, stop: threading.Event) -> None:
    for byte in answer:
        if stop.wait(interval):
            return
        try:
            conn.sendall(bytes([byte]))
        except OSError:
            return  # the client gave up: what the test is about


@contextmanager
def endless_refusal() -> Iterator[SlowPeer]:
    """A webhook that answers 500 with a body declared 10 GB long and sends it as fast as it can."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)
    port = listener.getsockname()[1]
    peer = SlowPeer(url=f"http://127.0.0.1:{port}/services/{HOOK_KEY}", port=port)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            peer.connections += 1
            with conn:
                peer.received.append(_read_request(conn, stop))
                conn.sendall(b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: 10000000000\r\n\r\n")
                chunk = b"x" * 65536
                while not stop.is_set():  # until the client hangs up (or the test ends)
                    try:
                        conn.sendall(chunk)
                    except OSError:
                        break

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield peer
    finally:
        stop.set()
        thread.join(timeout=15)
        listener.close()
