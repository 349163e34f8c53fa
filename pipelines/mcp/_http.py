"""MCP over streamable HTTP, on 127.0.0.1 only: the SDK's app (refusing a Host or Origin other
than loopback's at the bound port, against DNS rebinding) behind uvicorn, on a socket bound here.

Any local process can connect, so each connection is bounded: its request (head and body) must
arrive within REQUEST_DEADLINE_S, and past a cap of connections the one waiting longest on its
request is closed for the newcomer. A client that never finishes its request then holds nothing
for long and starves no one; one that leaves mid-request ends its request quietly."""

from __future__ import annotations

import asyncio
import logging
import resource
import socket
import sys
from collections.abc import Callable
from typing import Any

import h11
import uvicorn
from mcp.server.lowlevel import Server
from mcp.server.transport_security import TransportSecuritySettings
from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Receive, Scope, Send
from uvicorn.protocols.http.h11_impl import H11Protocol

LOOPBACK = "127.0.0.1"
PATH = "/mcp"
# A request on loopback arrives in milliseconds; one slower than this is held by a client that
# will not finish it.
REQUEST_DEADLINE_S = 10.0
# Connections held at once: at most this, and at most a quarter of the files the process may open
# (the rest are the warehouse's, the runtime's, the answers' and those accepted not yet seen).
MOST_CONNECTIONS = 64
_WAITING = (h11.IDLE, h11.SEND_BODY)  # the client's side of a request not yet whole


async def serve_http(server: Server[Any], *, port: int, limit: int, announce: Callable[[str], None]) -> None:
    """Serve until interrupted; `announce` is told the endpoint's URL once the port is bound (port
    0: a free one)."""
    sock = socket.create_server((LOOPBACK, port))
    with sock:
        bound = sock.getsockname()[1]
        app = server.streamable_http_app(
            streamable_http_path=PATH, max_request_body_size=limit, transport_security=_this_port_only(bound)
        )
        logging.getLogger("mcp.server.streamable_http").addFilter(_not_a_client_leaving)
        announce(f"http://{LOOPBACK}:{bound}{PATH}")
        cap = connection_cap()
        # The backlog is also how many connections asyncio accepts at a time before any is seen
        # here (a few batches pass before an eviction closes its file): half the cap keeps the
        # files held under the limit.
        config = uvicorn.Config(
            _host_in_lower_case(app),
            log_level="warning",
            lifespan="on",
            http=_bounded_protocol(cap),
            timeout_keep_alive=5,
            backlog=max(2, cap // 2),
        )
        asyncio.get_running_loop().set_exception_handler(_OutOfFiles())
        await uvicorn.Server(config).serve(sockets=[sock])


def _this_port_only(port: int) -> TransportSecuritySettings:
    """Against DNS rebinding: a Host and an Origin of loopback at this port alone (the SDK's own
    default takes any Host that begins with `127.0.0.1:`, as `127.0.0.1:1@evil.example`)."""
    hosts = [f"{LOOPBACK}:{port}", f"localhost:{port}"]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=hosts,
        allowed_origins=[f"http://{host}" for host in hosts],
    )


def _host_in_lower_case(app: ASGIApp) -> ASGIApp:
    """A host name is case-insensitive (RFC 9110 §4.2.3): the Host and Origin in lower case before
    the SDK compares them with the allowed ones, case-sensitively."""

    async def lowered(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = [(k, v.lower()) if k in (b"host", b"origin") else (k, v) for k, v in scope["headers"]]
            scope = {**scope, "headers": headers}
        await app(scope, receive, send)

    return lowered


def connection_cap() -> int:
    """MOST_CONNECTIONS, or fewer when the process may open few files."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return MOST_CONNECTIONS
    return max(4, min(MOST_CONNECTIONS, soft // 4))


class _OutOfFiles:
    """asyncio's report of an accept refused for want of files (a traceback per connection
    waiting), as one line a minute: the connections wait, and are taken as files free."""

    def __init__(self) -> None:
        self._told = -60.0

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        if context.get("message") != "socket.accept() out of system resource":
            loop.default_exception_handler(context)
            return
        if loop.time() - self._told >= 60:
            self._told = loop.time()
            soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
            sys.stderr.write(
                f"metrics-etl mcp: every file it may open is in use ({soft}): new connections wait until some "
                "close; raise `ulimit -n` if clients are many\n"
            )


def _bounded_protocol(cap: int) -> type[H11Protocol]:
    class Bounded(_BoundedH11):
        most = cap

    return Bounded


class _BoundedH11(H11Protocol):
    """uvicorn's HTTP/1.1 with a deadline on each request's arrival and a cap on connections."""

    most = MOST_CONNECTIONS
    _deadline: asyncio.TimerHandle | None = None
    _waiting_since = 0.0

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()
        if len(self.connections) > self.most:
            waiting = [c for c in self.connections if isinstance(c, _BoundedH11) and c is not self and c.waiting()]
            if waiting:
                min(waiting, key=lambda c: c._waiting_since).transport.close()

    def handle_events(self) -> None:
        super().handle_events()
        if not self.waiting() and self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing():
            self._arm()  # the next request on this connection has the same deadline

    def connection_lost(self, exc: Exception | None) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        super().connection_lost(exc)

    def waiting(self) -> bool:
        """Whether the client has yet to send the whole of its request."""
        return self.conn.their_state in _WAITING and not self.transport.is_closing()

    def _arm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._waiting_since = self.loop.time()
        self._deadline = self.loop.call_later(REQUEST_DEADLINE_S, self._expire)

    def _expire(self) -> None:
        self._deadline = None
        if self.waiting():
            self.transport.close()


def _not_a_client_leaving(record: logging.LogRecord) -> bool:
    """A client that leaves before its request is whole is no error of ours: the SDK logs it with
    its traceback, and there is no one to answer; its request just ends."""
    return not (record.exc_info and isinstance(record.exc_info[1], ClientDisconnect))
