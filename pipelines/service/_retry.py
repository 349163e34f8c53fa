"""Retry decisions, apart from the HTTP: which failure is tried again, after how long, when to stop.

The waits follow the public service's rules: a spent primary limit waits until its reset (plus a
buffer); a limit that names no time to wait (a primary limit without ``x-ratelimit-reset``, a
secondary limit without a usable ``retry-after``) waits at least a minute, then doubles; 5xx and
lost connections back off exponentially with jitter. A rate-limit wait beyond the configured cap
is not attempted: the failure is raised at once, saying how long it would have waited.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from pipelines.service.errors import (
    RateLimited,
    SecondaryRateLimited,
    ServerError,
    ServiceError,
    TransportFailed,
    Unreachable,
)


@dataclass(frozen=True)
class Decision:
    """``wait`` seconds before the next attempt, or None to raise the failure (with ``advice``)."""

    wait: float | None
    kind: str = ""
    advice: str = ""


_GIVE_UP = Decision(wait=None)


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 5
    backoff_initial: float = 0.5
    backoff_max: float = 30.0
    rate_limit_buffer: float = 2.0
    # The public docs: without a time to wait, wait at least one minute, then back off exponentially.
    limit_wait: float = 60.0

    def decide(
        self, failure: ServiceError, *, attempt: int, now: float, max_wait: float, repeatable: bool
    ) -> Decision:
        """What to do after ``failure`` ended attempt number ``attempt`` (1-based).

        ``max_wait`` caps a rate-limit wait; ``repeatable`` says the request may be sent twice
        (a read), which matters when a failed connection may have delivered it.
        """
        if attempt >= self.max_attempts:
            return _GIVE_UP
        if isinstance(failure, RateLimited):
            if failure.reset_at is not None:
                return self._limit(max(0.0, failure.reset_at - now) + self.rate_limit_buffer, "rate_limit", max_wait)
            return self._limit(self._limit_backoff(attempt), "rate_limit", max_wait)
        if isinstance(failure, SecondaryRateLimited):
            given = failure.retry_after
            wait = given if given is not None and given > 0 else self._limit_backoff(attempt)
            return self._limit(wait, "secondary_rate_limit", max_wait)
        if isinstance(failure, ServerError):
            return Decision(wait=self._backoff(attempt), kind="server_error")
        if isinstance(failure, Unreachable):
            return _GIVE_UP
        if isinstance(failure, TransportFailed) and (repeatable or not failure.may_have_arrived):
            return Decision(wait=self._backoff(attempt), kind="transport")
        return _GIVE_UP

    def _limit_backoff(self, attempt: int) -> float:
        return self.limit_wait * 2 ** (attempt - 1)

    def _backoff(self, attempt: int) -> float:
        wait = self.backoff_initial * 2 ** (attempt - 1) + random.uniform(0, self.backoff_initial)
        return min(wait, self.backoff_max)

    @staticmethod
    def _limit(wait: float, kind: str, max_wait: float) -> Decision:
        if wait <= max_wait:
            return Decision(wait=wait, kind=kind)
        return Decision(
            wait=None,
            advice=(
                f"Waiting {wait:.0f}s would exceed SERVICE_RATE_LIMIT_MAX_WAIT ({max_wait:.0f}s): "
                "raise it, or run again later"
            ),
        )
