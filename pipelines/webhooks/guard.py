"""What a hostile or broken client can hold, bounded: time, connections, memory; refusals counted.

uvicorn bounds none of these itself (0.54): `timeout_keep_alive` only covers the idle time
between requests and is cancelled by every byte received, so a client trickling a header or a
body holds its connection for ever; `limit_concurrency` still accepts every connection (each a
file descriptor) and only answers 503 once its headers are complete; httptools puts no limit on
header size. `GuardedHttpToolsProtocol` adds a deadline for the headers and one for the body of
each request, a header size cap and a cap on open connections; `BodyBudget` caps the request
bytes the app holds before their signature is checked; `RefusalLog` (`_refusals.py`) counts refusals.

Connections that have not sent a complete request head (fresh, trickling one, or idle between
requests) cost an attacker nothing to hold, so they never keep a slot from a new connection
(`Slots`): at the cap the oldest of them is closed to make room, and one client (source
address) holds at most `max_waiting_per_client` of them, its oldest closed first. Nor do bodies
that look unsigned, trickle, or wait for the memory budget (`Slots`, in its order); only when
every slot holds a request being answered is a new connection refused, with 503. A body that
cannot arrive in time also lets go of the memory budget when a delivery waits for it
(`Slots.free_budget`).
"""

from __future__ import annotations

import asyncio
import re
import resource
from collections.abc import Mapping
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle

from pipelines.service.dialect import DIALECTS
from pipelines.webhooks._refusals import RefusalLog
from pipelines.webhooks.errors import WebhookConfigError
from pipelines.webhooks.slots import BodyBudget, Slots

# Descriptors the process needs beside its connections: listening socket, spool segment,
# directory fsync, logging, the event loop's own.
_SPARE_FDS = 64

# Refusals the protocol makes itself, counted here; the app logs each request it handles on its own line.
HEADERS_TIMED_OUT = "headers not complete within the header timeout (408, closed)"
BODY_TIMED_OUT = "body not complete within the body timeout (408, closed)"
HEADERS_TOO_LARGE = "too large: headers over the header limit (431, closed)"
TOO_MANY_CONNECTIONS = "over the connection limit with every connection being answered (503, closed at once)"
ANSWER_NOT_READ = "answers not read by the client within the header timeout (closed)"
TOO_MANY_PIPELINED = "more than 8 requests sent ahead of their answers (closed)"
# Requests parsed while one is answered wait in uvicorn's queue, about 1 KB each: one read of a
# flood of pipelined heads would queue thousands. Real senders wait for each answer.
_MAX_PIPELINED = 8
# Where the app finds a request's connection in its ASGI scope (`connection_of`).
_SCOPE_EXTENSION = "metrics-etl.connection"

_SIGNATURE = re.compile(rb"sha256=[0-9a-f]{64}", re.IGNORECASE)
_SIGNATURE_HEADERS = frozenset(dialect.signature_header.encode() for dialect in DIALECTS.values())


def _raw_answer(status: int, reason: str) -> bytes:
    body = f'{{"message": "{reason}"}}'.encode()
    return (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode() + body


_ANSWER_408 = _raw_answer(408, "Request Timeout")
_ANSWER_431 = _raw_answer(431, "Request Header Fields Too Large")
_ANSWER_503 = _raw_answer(503, "Service Unavailable")


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
        self.signed_looking = False
        self.body_started = 0.0
        self.body_bytes = 0
        self.declared: int | None = None
        self.reserved = 0
        self.reserved_at = 0.0
        self.bytes_at_reserve = 0
        self.awaiting_budget = False
        self.answer_unread = False  # its answers fill the write buffer: the client is not reading them
        self._unread_deadline: asyncio.TimerHandle | None = None
        self._answering: RequestResponseCycle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        peer = transport.get_extra_info("peername")
        self.client_host = str(peer[0]) if isinstance(peer, tuple) and peer else "unknown"
        if not self._guard.slots.admit(self, self.loop.time()):
            self._guard.refusals.refused(TOO_MANY_CONNECTIONS)
            transport.write(_ANSWER_503)
            transport.close()
            return
        super().connection_made(transport)
        self._enter_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._unread_deadline is not None:
            self._unread_deadline.cancel()
        self._guard.slots.release(self)
        if self.transport is None:  # refused in connection_made: uvicorn never saw it
            return
        super().connection_lost(exc)

    def evict(self, kind: str) -> None:
        """Close this connection to make room: a request begun is answered 503, an idle
        keep-alive connection closed as its keep-alive timeout would."""
        self._guard.slots.release(self)
        self._refuse(kind, _ANSWER_503 if self._phase in ("headers", "body") else b"")

    def data_received(self, data: bytes) -> None:
        if self._phase == "idle":
            self._enter_headers()
        if self._phase == "headers":
            self._header_bytes += len(data)
        super().data_received(data)
        if self._phase == "headers" and self._header_bytes > self._guard.max_header_bytes:
            self._refuse(HEADERS_TOO_LARGE, _ANSWER_431)

    def _start_asgi_task(self, cycle: RequestResponseCycle, app: Any) -> None:
        # The request being answered: `self.cycle` is the newest parsed, maybe one queued behind it.
        self._answering = cycle
        super()._start_asgi_task(cycle, app)

    def pause_writing(self) -> None:
        """Its answers are not being read: the connection holds a slot for nothing, and is the
        first to make room, and closed if it stays so for the header timeout."""
        super().pause_writing()
        self.answer_unread = True
        self._guard.slots.unread(self)
        if self._unread_deadline is None:
            self._unread_deadline = self.loop.call_later(self._guard.header_timeout, self._refuse, ANSWER_NOT_READ, b"")

    def resume_writing(self) -> None:
        super().resume_writing()
        self.answer_unread = False
        self._guard.slots.read_again(self)
        if self._unread_deadline is not None:
            self._unread_deadline.cancel()
            self._unread_deadline = None

    def on_message_begin(self) -> None:
        if self._phase == "closed":  # the rest of a read after a refusal: parsed, never queued
            return
        if len(self.pipeline) >= _MAX_PIPELINED:
            self._refuse(TOO_MANY_PIPELINED, b"")
            return
        super().on_message_begin()
        if self._phase == "idle":
            self._enter_headers()

    def on_headers_complete(self) -> None:
        if self._phase == "closed":
            return
        self._phase = "body"
        self.signed_looking = self.parser.get_method() == b"POST" and any(
            name in _SIGNATURE_HEADERS and _SIGNATURE.fullmatch(value) for name, value in self.headers
        )
        self.body_started, self.body_bytes, self.reserved, self.awaiting_budget = self.loop.time(), 0, 0, False
        length = next((value for name, value in self.headers if name == b"content-length"), None)
        self.declared = int(length) if length is not None and length.isdigit() else None
        self._guard.slots.receiving(self)
        self._arm(self._guard.body_timeout, BODY_TIMED_OUT)
        self.scope.setdefault("extensions", {})[_SCOPE_EXTENSION] = {"connection": self}
        super().on_headers_complete()

    def hold(self, size: int) -> None:
        """Its request now holds `size` bytes of the memory budget."""
        self.reserved, self.reserved_at, self.bytes_at_reserve = size, self.loop.time(), self.body_bytes
        self.awaiting_budget = False

    def on_body(self, body: bytes) -> None:
        if self._phase == "closed":
            return
        self.body_bytes += len(body)
        super().on_body(body)

    def on_message_complete(self) -> None:
        if self._phase == "closed":
            return
        self._phase = "idle"
        self._disarm()
        self._guard.slots.busy(self)
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        # Answered and kept alive with nothing more under way: waiting again, from now.
        if not self.transport.is_closing() and not self.pipeline and self._phase == "idle":
            self._guard.slots.wait(self, self.loop.time())

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
        for cycle in (self._answering, self.cycle):
            if cycle is not None and not cycle.response_complete:
                # The app's answer under way ends quietly: uvloop raises on a write to a closed transport.
                cycle.disconnected = True
                cycle.message_event.set()
        self.flow.resume_writing()
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
        self.slots = Slots(
            max_connections=max_connections, max_waiting_per_client=max_waiting_per_client, body_timeout=body_timeout
        )


def connection_of(scope: Mapping[str, Any]) -> GuardedHttpToolsProtocol | None:
    """The guarded connection a request came on (None under another server, e.g. a test's)."""
    found = scope.get("extensions", {}).get(_SCOPE_EXTENSION, {}).get("connection")
    return found if isinstance(found, GuardedHttpToolsProtocol) else None


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
