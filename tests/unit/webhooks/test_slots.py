"""Which connection gives up its slot at the cap (pipelines/webhooks/slots.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from pipelines.webhooks.slots import BODY_CLOSED_AT_CAP, Slots


@dataclass(eq=False)
class _Body:
    """A connection whose signed-looking head is in and whose body is arriving."""

    body_started: float
    body_bytes: int
    client_host: str = "127.0.0.1"
    signed_looking: bool = True
    declared: int | None = 10_000
    reserved: int = 0
    reserved_at: float = 0.0
    bytes_at_reserve: int = 0
    awaiting_budget: bool = False
    evicted: list[str] = field(default_factory=list)

    def evict(self, kind: str) -> None:
        self.evicted.append(kind)


def _full(bodies: list[_Body]) -> Slots:
    slots = Slots(max_connections=len(bodies), max_waiting_per_client=10_000, body_timeout=10.0)
    for body in bodies:
        slots.held.add(body)
        slots.receiving(body)
    return slots


def test_a_renewed_flood_of_young_trickling_bodies_gives_up_its_slowest_slot_to_a_new_connection() -> None:
    # Every slot a forged body under half a second old, trickling: none is judged doomed yet.
    flood = [_Body(body_started=10.0 - 0.2 + n * 0.001, body_bytes=1) for n in range(5)]
    slots = _full(flood)
    assert slots.admit(_Body(body_started=10.0, body_bytes=0), now=10.0)
    assert [b.evicted for b in flood].count([BODY_CLOSED_AT_CAP]) == 1


def test_bodies_arriving_at_a_delivery_s_pace_keep_their_slots_and_the_new_connection_is_refused() -> None:
    # Every slot a body arriving fast (200 KB in 0.2 s): none is a trickle.
    real = [_Body(body_started=9.8, body_bytes=200_000, declared=1_000_000) for _ in range(3)]
    slots = _full(real)
    assert not slots.admit(_Body(body_started=10.0, body_bytes=0), now=10.0)
    assert all(not b.evicted for b in real)


def test_a_body_younger_than_the_pace_floor_is_not_judged() -> None:
    fresh = [_Body(body_started=9.95, body_bytes=0) for _ in range(3)]
    slots = _full(fresh)
    assert not slots.admit(_Body(body_started=10.0, body_bytes=0), now=10.0)
