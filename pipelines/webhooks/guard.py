"""What a hostile or broken client can hold, bounded: time, connections, memory; refusals counted.

uvicorn bounds none of these itself (0.54): `timeout_keep_alive` only covers the idle time
between requests and is cancelled by every byte received, so a client trickling a header or a
body holds its connection for ever; `limit_concurrency` still accepts every connection (each a
file descriptor) and only answers 503 once its headers are complete; httptools puts no limit on
header size. `GuardedHttpToolsProtocol` adds a deadline for the headers and one for the body of
each request, a header size cap and a cap on open connections; `BodyBudget` caps the request
bytes the app holds before their signature is checked.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import time
from collections import Counter
from typing import Any

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
TOO_MANY_CONNECTIONS = "over the connection limit (503, closed at once)"


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

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        # Counted before uvicorn adds this one: the cap is on connections held open.
        if len(self.connections) >= self._guard.max_connections:
            self._guard.refusals.refused(TOO_MANY_CONNECTIONS)
            transport.write(_ANSWER_503)
            transport.close()
            return
        super().connection_made(transport)
        self._enter_headers()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self.transport is None:  # refused in connection_made: uvicorn never saw it
            return
        super().connection_lost(exc)

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
        self._arm(self._guard.body_timeout, BODY_TIMED_OUT)
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        self._phase = "idle"
        self._disarm()
        super().on_message_complete()

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
        if self.cycle is None or self.cycle.response_complete or not self.cycle.response_started:
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
        max_header_bytes: int,
        max_body_memory_bytes: int,
        log_interval: float,
    ) -> None:
        self.header_timeout = header_timeout
        self.body_timeout = body_timeout
        self.max_connections = max_connections
        self.max_header_bytes = max_header_bytes
        self.refusals = RefusalLog(log_interval)
        self.budget = BodyBudget(max_body_memory_bytes)


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
