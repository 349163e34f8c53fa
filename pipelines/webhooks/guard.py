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
address) holds at most `max_waiting_per_client` of them, its oldest closed first. Nor do bodies
that look unsigned, trickle, or wait for the memory budget (`Slots`, in its order); only when
every slot holds a request being answered is a new connection refused, with 503. A body that
cannot arrive in time also lets go of the memory budget when a delivery waits for it
(`Slots.free_budget`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import resource
import time
from collections import Counter
from collections.abc import Mapping
from typing import Any, Protocol

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from pipelines.service.dialect import DIALECTS
from pipelines.webhooks.errors import WebhookConfigError

_log = logging.getLogger("pipelines.webhooks")

# Descriptors the process needs beside its connections: listening socket, spool segment,
# directory fsync, logging, the event loop's own.
_SPARE_FDS = 64

# Refusals the protocol makes itself, counted here; the app logs each request it handles on its own line.
HEADERS_TIMED_OUT = "headers not complete within the header timeout (408, closed)"
BODY_TIMED_OUT = "body not complete within the body timeout (408, closed)"
HEADERS_TOO_LARGE = "too large: headers over the header limit (431, closed)"
TOO_MANY_CONNECTIONS = "over the connection limit with every connection being answered (503, closed at once)"
WAITING_CLOSED_AT_CAP = "waiting connection (no complete request head) closed to make room at the connection limit"
WAITING_CLOSED_PER_CLIENT = "waiting connection closed: its client held more than the per-client limit of them"
BODY_CLOSED_AT_CAP = "body still arriving closed to make room at the connection limit (unsigned-looking or slowest)"
BODY_CLOSED_FOR_MEMORY = "body that could not arrive in time closed to free the memory budget for another (503)"
# Where the app finds a request's connection in its ASGI scope (`connection_of`).
_SCOPE_EXTENSION = "metrics-etl.connection"

# A body is judged by its pace once it has been arriving (or holding the memory budget) this
# long; its pace is its bytes over at least _PACE_FLOOR seconds.
_JUDGED_AFTER = 0.5
_PACE_FLOOR = 0.1
# Bytes a second under which a body is judged a trickle whatever its length (a chunked body
# declares none). A real delivery's body is in within the half second before judging, or is
# large and arrives far faster (25 MB within the 60 s body timeout is 420 KB/s); holding a slot
# costs an attacker this much bandwidth per connection.
_MIN_PACE = 64 * 1024
# A connection waiting this long for a request head (or idle) is the first to make room.
_STALE_WAIT = 1.0
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

    async def changed(self, timeout: float) -> None:
        """Wait until a release, or `timeout` seconds."""
        self._changed.clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._changed.wait(), timeout)

    def release(self, size: int) -> None:
        self.held -= size
        self._changed.set()


class _Connection(Protocol):
    client_host: str
    signed_looking: bool  # its head: POST with a well-formed signature (checked once its body is in)
    body_started: float  # loop time its head completed
    body_bytes: int
    declared: int | None  # its Content-Length, if it gave one
    reserved: int  # bytes of the memory budget its request holds for its body
    reserved_at: float  # loop time it got them
    bytes_at_reserve: int  # body bytes it had then
    awaiting_budget: bool  # its request waits for the memory budget

    def evict(self, kind: str) -> None: ...


class Slots:
    """The connections held open: waiting ones (no request under way), oldest first, and those
    whose body is arriving. At the cap, which one gives up its slot for a new connection:

    1. a connection waiting for over `_STALE_WAIT` s (idle, or trickling its head: bytes of a head
       do not renew its place);
    2. a body whose head does not look like a signed delivery (`POST` with a `sha256=` signature
       of 64 hex digits): it will be refused whatever it holds;
    3. a body that cannot arrive in time at its pace (`_doomed`), slowest first: a real
       delivery's body arrives in a burst, a forged one trickles;
    4. a body waiting for the memory budget, the newest first;
    5. the oldest waiting connection, however fresh.

    Only when every slot holds a request being answered is a new connection refused (503).
    """

    def __init__(self, *, max_connections: int, max_waiting_per_client: int, body_timeout: float) -> None:
        self.max_connections = max_connections
        self.max_waiting_per_client = max_waiting_per_client
        self.body_timeout = body_timeout
        self.held: set[_Connection] = set()
        # Dicts as ordered sets (oldest first): waiting ones with the loop time they began to wait.
        self._waiting: dict[_Connection, float] = {}
        self._waiting_by_client: dict[str, dict[_Connection, None]] = {}
        self._receiving: dict[_Connection, None] = {}
        self._budget_looked = float("-inf")

    def admit(self, connection: _Connection, now: float) -> bool:
        """Take a slot for a new (waiting) connection, closing another to make room; False: every
        slot is held by a request being answered, refuse it."""
        mine = self._waiting_by_client.get(connection.client_host, {})
        if len(mine) >= self.max_waiting_per_client:
            next(iter(mine)).evict(WAITING_CLOSED_PER_CLIENT)
        if len(self.held) >= self.max_connections:
            victim = self._make_room(now)
            if victim is None:
                return False
            victim[0].evict(victim[1])
        self.held.add(connection)
        self.wait(connection, now)
        return True

    def _make_room(self, now: float) -> tuple[_Connection, str] | None:
        oldest = next(iter(self._waiting.items()), None)
        if oldest is not None and now - oldest[1] >= _STALE_WAIT:
            return oldest[0], WAITING_CLOSED_AT_CAP
        unsigned = next((c for c in self._receiving if not c.signed_looking), None)
        if unsigned is not None:
            return unsigned, BODY_CLOSED_AT_CAP
        doomed = [c for c in self._receiving if self._doomed(c, now)]
        if doomed:
            return min(doomed, key=lambda c: _pace(c, now)), BODY_CLOSED_AT_CAP
        waiting_for_memory = [c for c in self._receiving if c.awaiting_budget]
        if waiting_for_memory:
            return waiting_for_memory[-1], BODY_CLOSED_AT_CAP
        return (oldest[0], WAITING_CLOSED_AT_CAP) if oldest is not None else None

    def _doomed(self, connection: _Connection, now: float) -> bool:
        """A body that, at its pace (since it got the memory budget, if it waited for it), will not
        be complete before its body timeout, or trickles under `_MIN_PACE`: it would get 408 anyway.
        A body waiting for the budget is not judged: the receiver holds it back, not its sender."""
        if connection.awaiting_budget:
            return False
        since = connection.reserved_at if connection.reserved else connection.body_started
        if now - since < _JUDGED_AFTER:
            return False
        pace = _pace(connection, now)
        if pace < _MIN_PACE:
            return True
        left = connection.body_started + self.body_timeout - now
        return connection.declared is not None and pace * left < connection.declared - connection.body_bytes

    def free_budget(self, budget: BodyBudget, size: int, now: float) -> None:
        """Close bodies holding the memory budget that cannot arrive in time, slowest first,
        until `size` fits once they let go: a body trickled under a forged signature holds the
        budget no longer than the next delivery that needs it, and a real one arriving in time
        is never closed for another. Looked at most once per `_PACE_FLOOR` s however many wait."""
        if now - self._budget_looked < _PACE_FLOOR:
            return
        self._budget_looked = now
        doomed = [c for c in self._receiving if c.reserved and self._doomed(c, now)]
        freed = 0
        for connection in sorted(doomed, key=lambda c: _pace(c, now)):
            if budget.held - freed + size <= budget.capacity:
                return
            freed += connection.reserved
            connection.evict(BODY_CLOSED_FOR_MEMORY)

    def wait(self, connection: _Connection, now: float) -> None:
        if connection in self.held and connection not in self._waiting:
            self._waiting[connection] = now
            self._waiting_by_client.setdefault(connection.client_host, {})[connection] = None

    def receiving(self, connection: _Connection) -> None:
        """Its head is complete and its body arriving."""
        self.busy(connection)
        if connection in self.held:
            self._receiving[connection] = None

    def busy(self, connection: _Connection) -> None:
        """The connection's request is complete and being answered: it is not closed to make room."""
        self._receiving.pop(connection, None)
        if connection in self._waiting:
            del self._waiting[connection]
            mine = self._waiting_by_client[connection.client_host]
            del mine[connection]
            if not mine:
                del self._waiting_by_client[connection.client_host]

    def release(self, connection: _Connection) -> None:
        self.busy(connection)
        self.held.discard(connection)


def _pace(connection: _Connection, now: float) -> float:
    """Body bytes a second: since it got the memory budget if it waited for it, else since its head."""
    since, base = (
        (connection.reserved_at, connection.bytes_at_reserve) if connection.reserved else (connection.body_started, 0)
    )
    return (connection.body_bytes - base) / max(now - since, _PACE_FLOOR)


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

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._phase == "idle":
            self._enter_headers()

    def on_headers_complete(self) -> None:
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
        self.body_bytes += len(body)
        super().on_body(body)

    def on_message_complete(self) -> None:
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
