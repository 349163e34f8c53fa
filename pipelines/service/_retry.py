"""Retry decisions, apart from the HTTP: which failure is tried again, after how long, when to stop.

Each kind of failure has a small policy; :class:`RetryPolicy` asks them in turn and the first
that recognises the failure decides. The waits follow the public service's rules: a spent
primary limit waits until its reset (plus a buffer); a limit that names no time to wait (a
primary limit without ``x-ratelimit-reset``, a secondary limit without a usable
``retry-after``) waits at least a minute, then doubles; 5xx and lost connections back off
exponentially with jitter. A rate-limit wait beyond the configured cap is not attempted: the
failure is raised at once, saying how long it would have waited.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from pipelines.service.errors import (
    RateLimited,
    SecondaryRateLimited,
    ServerError,
    ServiceError,
    TransportFailed,
    Unreachable,
)

__all__ = [
    "Decision",
    "RateLimitPolicy",
    "RetryPolicy",
    "SecondaryRateLimitPolicy",
    "ServerErrorPolicy",
    "TransportPolicy",
]


@dataclass(frozen=True)
class Decision:
    """``wait`` seconds before the next attempt, or None to raise the failure (with ``advice``)."""

    wait: float | None
    kind: str = ""
    advice: str = ""


_GIVE_UP = Decision(wait=None)


class Policy(Protocol):
    def decide(
        self, failure: ServiceError, *, attempt: int, now: float, max_wait: float, repeatable: bool
    ) -> Decision | None:
        """The decision for a failure this policy knows; None leaves it to the next policy."""
        ...


@dataclass(frozen=True)
class Backoff:
    """Exponential, with up to ``initial`` seconds of jitter, never beyond ``maximum``."""

    initial: float
    maximum: float

    def wait(self, attempt: int) -> float:
        return min(self.initial * 2.0 ** (attempt - 1) + random.uniform(0, self.initial), self.maximum)


def _limit_backoff(limit_wait: float, attempt: int) -> float:
    return limit_wait * 2.0 ** (attempt - 1)


def _within_cap(wait: float, kind: str, max_wait: float) -> Decision:
    if wait <= max_wait:
        return Decision(wait=wait, kind=kind)
    return Decision(
        wait=None,
        advice=(
            f"Waiting {wait:.0f}s would exceed SERVICE_RATE_LIMIT_MAX_WAIT ({max_wait:.0f}s): "
            "raise it, or run again later"
        ),
    )


@dataclass(frozen=True)
class RateLimitPolicy:
    """A spent primary limit: wait until its reset plus ``buffer``, else ``limit_wait`` doubling."""

    buffer: float
    limit_wait: float

    def decide(
        self, failure: ServiceError, *, attempt: int, now: float, max_wait: float, repeatable: bool
    ) -> Decision | None:
        if not isinstance(failure, RateLimited):
            return None
        if failure.reset_at is not None:
            return _within_cap(max(0.0, failure.reset_at - now) + self.buffer, "rate_limit", max_wait)
        return _within_cap(_limit_backoff(self.limit_wait, attempt), "rate_limit", max_wait)


@dataclass(frozen=True)
class SecondaryRateLimitPolicy:
    """A secondary limit: its ``retry-after`` when usable, else ``limit_wait`` doubling."""

    limit_wait: float

    def decide(
        self, failure: ServiceError, *, attempt: int, now: float, max_wait: float, repeatable: bool
    ) -> Decision | None:
        if not isinstance(failure, SecondaryRateLimited):
            return None
        given = failure.retry_after
        wait = given if given is not None and given > 0 else _limit_backoff(self.limit_wait, attempt)
        return _within_cap(wait, "secondary_rate_limit", max_wait)


@dataclass(frozen=True)
class ServerErrorPolicy:
    backoff: Backoff

    def decide(
        self, failure: ServiceError, *, attempt: int, now: float, max_wait: float, repeatable: bool
    ) -> Decision | None:
        if not isinstance(failure, ServerError):
            return None
        return Decision(wait=self.backoff.wait(attempt), kind="server_error")


@dataclass(frozen=True)
class TransportPolicy:
    """No answer: retried when the request may be sent twice or surely never arrived.

    A host that never answered is a wrong address, not an outage: never retried.
    """

    backoff: Backoff

    def decide(
        self, failure: ServiceError, *, attempt: int, now: float, max_wait: float, repeatable: bool
    ) -> Decision | None:
        if not isinstance(failure, TransportFailed):
            return None
        if isinstance(failure, Unreachable) or (failure.may_have_arrived and not repeatable):
            return _GIVE_UP
        return Decision(wait=self.backoff.wait(attempt), kind="transport")


@dataclass(frozen=True)
class RetryPolicy:
    """The chain of policies above with their shared settings, bounded by ``max_attempts``."""

    max_attempts: int = 5
    backoff_initial: float = 0.5
    backoff_max: float = 30.0
    rate_limit_buffer: float = 2.0
    # The public docs: without a time to wait, wait at least one minute, then back off exponentially.
    limit_wait: float = 60.0

    @property
    def policies(self) -> Sequence[Policy]:
        backoff = Backoff(initial=self.backoff_initial, maximum=self.backoff_max)
        return (
            RateLimitPolicy(buffer=self.rate_limit_buffer, limit_wait=self.limit_wait),
            SecondaryRateLimitPolicy(limit_wait=self.limit_wait),
            ServerErrorPolicy(backoff=backoff),
            TransportPolicy(backoff=backoff),
        )

    def decide(
        self, failure: ServiceError, *, attempt: int, now: float, max_wait: float, repeatable: bool
    ) -> Decision:
        """What to do after ``failure`` ended attempt number ``attempt`` (1-based).

        ``max_wait`` caps a rate-limit wait; ``repeatable`` says the request may be sent twice
        (a read), which matters when a failed connection may have delivered it. A failure no
        policy recognises (401, 403, 404, a misdirection, …) will not change: it is raised.
        """
        if attempt >= self.max_attempts:
            return _GIVE_UP
        for policy in self.policies:
            decision = policy.decide(failure, attempt=attempt, now=now, max_wait=max_wait, repeatable=repeatable)
            if decision is not None:
                return decision
        return _GIVE_UP
