"""What connections hold: a slot among `--max-connections`, and bytes of the memory budget.

Which connection gives up its slot to a new one, or its share of the budget to a waiting
delivery, is decided here, from what each has done: how long it has waited for a request head,
whether its head looks signed, and its body's pace. `guard.py` feeds these facts in from the
HTTP protocol.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Protocol

__all__ = [
    "BODY_CLOSED_AT_CAP",
    "BODY_CLOSED_FOR_MEMORY",
    "UNREAD_CLOSED_AT_CAP",
    "WAITING_CLOSED_AT_CAP",
    "WAITING_CLOSED_PER_CLIENT",
    "BodyBudget",
    "Connection",
    "Slots",
]

WAITING_CLOSED_AT_CAP = "waiting connection (no complete request head) closed to make room at the connection limit"
WAITING_CLOSED_PER_CLIENT = "waiting connection closed: its client held more than the per-client limit of them"
UNREAD_CLOSED_AT_CAP = "connection not reading its answers closed to make room at the connection limit"
BODY_CLOSED_AT_CAP = "body still arriving closed to make room at the connection limit (unsigned-looking or slowest)"
BODY_CLOSED_FOR_MEMORY = "body that could not arrive in time closed to free the memory budget for another (503)"

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


class Connection(Protocol):
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
       do not renew its place), or one whose client does not read its answers (they fill the
       write buffer);
    2. a body whose head does not look like a signed delivery (`POST` with a `sha256=` signature
       of 64 hex digits): it will be refused whatever it holds;
    3. a body that cannot arrive in time at its pace (`_doomed`), slowest first: a real
       delivery's body arrives in a burst, a forged one trickles;
    4. a body waiting for the memory budget, the newest first;
    5. the oldest waiting connection, however fresh;
    6. a body arriving for `_PACE_FLOOR` s or more under `_MIN_PACE`, however young, slowest
       first: a flood of forged signed heads that reopens each connection it loses keeps every
       slot younger than `_JUDGED_AFTER`, and would keep a delivery out.

    Only when every slot holds a request being answered, or a body arriving at a delivery's
    pace, is a new connection refused (503).
    """

    def __init__(self, *, max_connections: int, max_waiting_per_client: int, body_timeout: float) -> None:
        self.max_connections = max_connections
        self.max_waiting_per_client = max_waiting_per_client
        self.body_timeout = body_timeout
        self.held: set[Connection] = set()
        # Dicts as ordered sets (oldest first): waiting ones with the loop time they began to wait.
        self._waiting: dict[Connection, float] = {}
        self._waiting_by_client: dict[str, dict[Connection, None]] = {}
        self._receiving: dict[Connection, None] = {}
        self._unread: dict[Connection, None] = {}
        self._budget_looked = float("-inf")

    def admit(self, connection: Connection, now: float) -> bool:
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

    def _make_room(self, now: float) -> tuple[Connection, str] | None:
        oldest = next(iter(self._waiting.items()), None)
        if oldest is not None and now - oldest[1] >= _STALE_WAIT:
            return oldest[0], WAITING_CLOSED_AT_CAP
        unread = next(iter(self._unread), None)
        if unread is not None:
            return unread, UNREAD_CLOSED_AT_CAP
        unsigned = next((c for c in self._receiving if not c.signed_looking), None)
        if unsigned is not None:
            return unsigned, BODY_CLOSED_AT_CAP
        doomed = [c for c in self._receiving if self._doomed(c, now)]
        if doomed:
            return min(doomed, key=lambda c: _pace(c, now)), BODY_CLOSED_AT_CAP
        waiting_for_memory = [c for c in self._receiving if c.awaiting_budget]
        if waiting_for_memory:
            return waiting_for_memory[-1], BODY_CLOSED_AT_CAP
        if oldest is not None:
            return oldest[0], WAITING_CLOSED_AT_CAP
        # Last, a body under half a second old already trickling under the pace no delivery
        # sends at: a flood that reopens each connection it loses keeps every slot that young.
        young = [c for c in self._receiving if now - c.body_started >= _PACE_FLOOR and _pace(c, now) < _MIN_PACE]
        return (min(young, key=lambda c: _pace(c, now)), BODY_CLOSED_AT_CAP) if young else None

    def _doomed(self, connection: Connection, now: float) -> bool:
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

    def wait(self, connection: Connection, now: float) -> None:
        if connection in self.held and connection not in self._waiting:
            self._waiting[connection] = now
            self._waiting_by_client.setdefault(connection.client_host, {})[connection] = None

    def unread(self, connection: Connection) -> None:
        """Its client does not read the answers it asked for."""
        if connection in self.held:
            self._unread[connection] = None

    def read_again(self, connection: Connection) -> None:
        self._unread.pop(connection, None)

    def receiving(self, connection: Connection) -> None:
        """Its head is complete and its body arriving."""
        self.busy(connection)
        if connection in self.held:
            self._receiving[connection] = None

    def busy(self, connection: Connection) -> None:
        """The connection's request is complete and being answered: it is not closed to make room."""
        self._receiving.pop(connection, None)
        if connection in self._waiting:
            del self._waiting[connection]
            mine = self._waiting_by_client[connection.client_host]
            del mine[connection]
            if not mine:
                del self._waiting_by_client[connection.client_host]

    def release(self, connection: Connection) -> None:
        self.busy(connection)
        self._unread.pop(connection, None)
        self.held.discard(connection)


def _pace(connection: Connection, now: float) -> float:
    """Body bytes a second: since it got the memory budget if it waited for it, else since its head."""
    since, base = (
        (connection.reserved_at, connection.bytes_at_reserve) if connection.reserved else (connection.body_started, 0)
    )
    return (connection.body_bytes - base) / max(now - since, _PACE_FLOOR)
