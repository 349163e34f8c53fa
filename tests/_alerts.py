"""Loopback stand-ins for an alert channel: an incoming webhook (HTTP) and an SMTP server
(aiosmtpd), each recording what arrived. Both bind 127.0.0.1 only."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

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
def webhook_server() -> Iterator[Hook]:
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

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
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
def smtp_server() -> Iterator[Mailbox]:
    """An SMTP server that takes a login (user `alerts`, SMTP_PASSWORD) over loopback."""
    port = free_port()
    box = Mailbox(
        url=f"smtp://alerts:{SMTP_PASSWORD}@127.0.0.1:{port}?to=ops@example.org&from=metrics@example.org", port=port
    )

    class Handler:
        async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
            box.messages.append(message_from_bytes(envelope.content, policy=policy.default))  # type: ignore[arg-type]
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
