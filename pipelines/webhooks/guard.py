"""What a hostile or broken client can hold, bounded: time, connections, memory; refusals counted.

uvicorn bounds none of these itself (0.54): `timeout_keep_alive` only covers the idle time
between requests and is cancelled by every byte received, so a client trickling a header or a
body holds its connection for ever; `limit_concurrency` still accepts every connection (each a
file descriptor) and only answers 503 once its headers are complete; httptools puts no limit on
header size. `GuardedHttpToolsProtocol` adds a deadline for the headers and one for the body of
each request, a header size cap and a cap on open connections; `BodyBudget` caps the request
bytes the app holds before their signature is checked.

Connections that have not sent a complete request head (fresh, trickling one, or idle between
requests) cost an attacker nothing to hold, so they never keep a slot from a new connection
(`Slots`): at the cap the oldest of them is closed to make room, and one client (source
address) holds at most `max_waiting_per_client` of them, its oldest closed first. Only
connections with a request under way (head complete: body arriving or being answered) are ever
refused for them, with 503.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from collections import Counter
from typing import Any, Protocol

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from pipelines.webhooks.errors import WebhookConfigError

_log = logging.getLogger("pipelines.webhooks")

# Descriptors the process needs beside its connections: listening socket, spool segment,
# directory fsync, logging, the event loop's own.
_SPARE_FDS = 64

# Refusals the protocol makes itself, counted here; the app logs each request it handles on its own line.
HEADERS_TIMED_OUT = "headers not complete within the header timeout (408, closed)"
BODY_TIMED_OUT = "body not complete within the body timeout (408, closed)"
HEADERS_TOO_LARGE = "too large: headers over the header limit (431, closed)"
TOO_MANY_CONNECTIONS = "over the connection limit with every connection mid-request (503, closed at once)"
WAITING_CLOSED_AT_CAP = "waiting connection (no complete request head) closed to make room at the connection limit"
WAITING_CLOSED_PER_CLIENT = "waiting connection closed: its client held more than the per-client limit of them"


def _raw_answer(status: int, reason: str) -> bytes:
    body = f'{{"message": "{reason}"}}'.encode()
    return (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode() + body


_ANSWER_408 = _raw_answer(408, "Request Timeout")
_ANSWER_431 = _raw_answer(431, "Request Header Fields Too Large")
_ANSWER_503 = _raw_answer(503, "Service Unavailable")


class RefusalLog:
    """One log line per refusal class per interval, with how many were refused in it.

    The first refusal of a class is logged at once; the ones that follow within `interval`
    are summed into one line when it ends, so a flood costs a line per class per interval.
    Lines name the class and count only: never a body, a header value or a signature.
    """

    def __init__(self, interval: float) -> None:
        self._interval = interval
        self._pending: Counter[str] = Counter()
        self._last_logged: dict[str, float] = {}
        self._flush_scheduled: set[str] = set()
        self.totals: Counter[str] = Counter()

    def refused(self, kind: str) -> None:
        self.totals[kind] += 1
        self._pending[kind] += 1
        if kind in self._flush_scheduled:
            return
        wait = self._last_logged.get(kind, -self._interval) + self._interval - time.monotonic()
        if wait <= 0:
            self._flush(kind)
        else:
            self._flush_scheduled.add(kind)
            asyncio.get_running_loop().call_later(wait, self._flush, kind)

    def _flush(self, kind: str) -> None:
        self._flush_scheduled.discard(kind)
        count = self._pending.pop(kind, 0)
        if count:
            self._last_logged[kind] = time.monotonic()
            _log.warning(
                "webhooks: refused %d request(s): %s (one line per kind per %g s)", count, kind, self._interval
            )

    def flush_all(self) -> None:
        for kind in list(self._pending):
            self._flush(kind)


class BodyBudget:
    """Bytes of request bodies held in memory before their signature is checked, all requests together.

    A request reserves its Content-Length before reading (waiting while others hold the
    budget), or chunk by chunk when the length is not declared; it releases it when answered.
    Waiters are not served in order: a small delivery proceeds whenever it fits, even while a
    large one waits.
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.held = 0
        self._changed = asyncio.Event()

    def try_reserve(self, size: int) -> bool:
        if self.held + size > self.capacity:
            return False
        self.held += size
        return True

    async def reserve(self, size: int) -> None:
        while not self.try_reserve(size):
            self._changed.clear()
            await self._changed.wait()

    def release(self, size: int) -> None:
        self.held -= size
        self._changed.set()


class _Connection(Protocol):
    client_host: str

    def evict(self, kind: str) -> None: ...


class Slots:
    """The connections held open, and among them the waiting ones (no request under way), oldest first.

    Waiting connections are ordered by when they last began to wait; bytes of a head still
    arriving do not renew that, so trickling keeps no connection from being the oldest.
    """

    def __init__(self, *, max_connections: int, max_waiting_per_client: int) -> None:
        self.max_connections = max_connections
        self.max_waiting_per_client = max_waiting_per_client
        self.held: set[_Connection] = set()
        # Dicts as ordered sets: insertion order is the order in which connections began to wait.
        self._waiting: dict[_Connection, None] = {}
        self._waiting_by_client: dict[str, dict[_Connection, None]] = {}

    def admit(self, connection: _Connection) -> bool:
        """Take a slot for a new (waiting) connection, closing waiting ones to make room; False:
        every slot is held by a request under way, refuse it."""
        mine = self._waiting_by_client.get(connection.client_host, {})
        if len(mine) >= self.max_waiting_per_client:
            next(iter(mine)).evict(WAITING_CLOSED_PER_CLIENT)
        if len(self.held) >= self.max_connections:
            if not self._waiting:
                return False
            next(iter(self._waiting)).evict(WAITING_CLOSED_AT_CAP)
        self.held.add(connection)
        self.wait(connection)
        return True

    def wait(self, connection: _Connection) -> None:
        if connection in self.held and connection not in self._waiting:
            self._waiting[connection] = None
            self._waiting_by_client.setdefault(connection.client_host, {})[connection] = None

    def busy(self, connection: _Connection) -> None:
        """The connection has a request under way: it is not closed to make room."""
        if connection in self._waiting:
            del self._waiting[connection]
            mine = self._waiting_by_client[connection.client_host]
            del mine[connection]
            if not mine:
                del self._waiting_by_client[connection.client_host]

    def release(self, connection: _Connection) -> None:
        self.busy(connection)
        self.held.discard(connection)

    @property
    def waiting(self) -> int:
        return len(self._waiting)


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with header/body deadlines, a header size cap and a connection cap.

    Phases of a connection: `headers` from connect (or from the first byte of a keep-alive
    request) until the headers are complete, `body` until the request is complete, `idle`
    while the app answers and between requests (where uvicorn's keep-alive timeout applies).
    """

    def __init__(self, *args: Any, guard: Guard, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._guard = guard
        self._phase = "idle"
        self._deadline: asyncio.TimerHandle | None = None
        self._header_bytes = 0
        self.client_host = ""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        peer = transport.get_extra_info("peername")
        self.client_host = str(peer[0]) if isinstance(peer, tuple) and peer else "unknown"
        if not self._guard.slots.admit(self):
            self._guard.refusals.refused(TOO_MANY_CONNECTIONS)
            transport.write(_ANSWER_503)
            transport.close()
            return
        super().connection_made(transport)
        self._enter_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._guard.slots.release(self)
        if self.transport is None:  # refused in connection_made: uvicorn never saw it
            return
        super().connection_lost(exc)

    def evict(self, kind: str) -> None:
        """Close this waiting connection to make room: a head begun is answered 503, an idle
        keep-alive connection closed as its keep-alive timeout would."""
        self._guard.slots.release(self)
        self._refuse(kind, _ANSWER_503 if self._phase == "headers" else b"")

    def data_received(self, data: bytes) -> None:
        if self._phase == "idle":
            self._enter_headers()
        if self._phase == "headers":
            self._header_bytes += len(data)
        super().data_received(data)
        if self._phase == "headers" and self._header_bytes > self._guard.max_header_bytes:
            self._refuse(HEADERS_TOO_LARGE, _ANSWER_431)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._phase == "idle":
            self._enter_headers()

    def on_headers_complete(self) -> None:
        self._phase = "body"
        self._guard.slots.busy(self)
        self._arm(self._guard.body_timeout, BODY_TIMED_OUT)
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._phase = "idle"
        self._disarm()
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        # Answered and kept alive with nothing more under way: waiting again, from now.
        if not self.transport.is_closing() and not self.pipeline and self._phase == "idle":
            self._guard.slots.wait(self)

    def _enter_headers(self) -> None:
        self._phase = "headers"
        self._header_bytes = 0
        self._arm(self._guard.header_timeout, HEADERS_TIMED_OUT)

    def _arm(self, seconds: float, kind: str) -> None:
        self._disarm()
        self._deadline = self.loop.call_later(seconds, self._refuse, kind, _ANSWER_408)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _refuse(self, kind: str, answer: bytes) -> None:
        self._disarm()
        self._phase = "closed"
        if self.transport.is_closing():
            return
        self._guard.refusals.refused(kind)
        # Only when the app has not started an answer of its own on this connection.
        if answer and (self.cycle is None or self.cycle.response_complete or not self.cycle.response_started):
            self.transport.write(answer)
        self.transport.close()


class Guard:
    """The limits one receiver process enforces, and its refusal log."""

    def __init__(
        self,
        *,
        header_timeout: float,
        body_timeout: float,
        max_connections: int,
        max_waiting_per_client: int,
        max_header_bytes: int,
        max_body_memory_bytes: int,
        log_interval: float,
    ) -> None:
        self.header_timeout = header_timeout
        self.body_timeout = body_timeout
        self.max_header_bytes = max_header_bytes
        self.refusals = RefusalLog(log_interval)
        self.budget = BodyBudget(max_body_memory_bytes)
        self.slots = Slots(max_connections=max_connections, max_waiting_per_client=max_waiting_per_client)


def ensure_fd_limit(max_connections: int) -> None:
    """Raise the soft open-file limit to fit the connection cap, or refuse to start saying why."""
    needed = max_connections + _SPARE_FDS
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        if hard != resource.RLIM_INFINITY and hard < needed:
            raise WebhookConfigError(
                f"--max-connections {max_connections} needs {needed} open files but the limit is {hard}:"
                " lower it or raise the limit (ulimit -n)"
            )
        resource.setrlimit(resource.RLIMIT_NOFILE, (needed, hard))
