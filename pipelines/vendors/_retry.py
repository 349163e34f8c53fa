"""Retry decisions apart from the HTTP: each kind of failure a small policy saying whether it is
tried again and after how long; `RetryPolicy.retrying` chains them into a ``tenacity.Retrying``.

A 429 waits what the vendor's `retry-after` says (Cursor sends 60; Anthropic sends the seconds
to wait), else a minute, doubling; a wait that would bring the request's waits in all beyond the
cap is not attempted (the failure is raised at once, saying so). A 5xx and a lost connection back
off exponentially with jitter. A host that never answered, a refused key or a bad request will
not change: raised at once.
"""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, NoReturn, cast

from tenacity import (
    Future,
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    wait_exponential,
    wait_exponential_jitter,
)
from tenacity.stop import stop_base
from tenacity.wait import wait_base

from pipelines.vendors.errors import RateLimited, ServerError, TransportFailed, Unreachable

__all__ = ["Policy", "RetryAfterPolicy", "RetryPolicy", "ServerErrorPolicy", "TransportPolicy"]


def _failure(retry_state: RetryCallState) -> BaseException:
    return cast(BaseException, cast(Future, retry_state.outcome).exception())


class Policy(wait_base):
    """One kind of failure: `retries` says whether it is tried again, the call how long to wait."""

    kind: ClassVar[str]

    @abstractmethod
    def retries(self, failure: BaseException) -> bool: ...


@dataclass(frozen=True)
class RetryAfterPolicy(Policy):
    """A 429: its `retry-after` when usable, else `doubling`."""

    doubling: wait_base
    kind: ClassVar[str] = "rate_limit"

    def retries(self, failure: BaseException) -> bool:
        return isinstance(failure, RateLimited)

    def __call__(self, retry_state: RetryCallState) -> float:
        failure = _failure(retry_state)
        given = failure.retry_after if isinstance(failure, RateLimited) else None
        return given if given is not None and given >= 0 else self.doubling(retry_state)


@dataclass(frozen=True)
class ServerErrorPolicy(Policy):
    """A 5xx: `backoff`."""

    backoff: wait_base
    kind: ClassVar[str] = "server_error"

    def retries(self, failure: BaseException) -> bool:
        return isinstance(failure, ServerError)

    def __call__(self, retry_state: RetryCallState) -> float:
        return self.backoff(retry_state)


@dataclass(frozen=True)
class TransportPolicy(Policy):
    """No answer: `backoff` (every vendor call is a read, safe to send twice), but never a host
    that refused the connection."""

    backoff: wait_base
    kind: ClassVar[str] = "transport"

    def retries(self, failure: BaseException) -> bool:
        return isinstance(failure, TransportFailed) and not isinstance(failure, Unreachable)

    def __call__(self, retry_state: RetryCallState) -> float:
        return self.backoff(retry_state)


@dataclass(frozen=True)
class _Chain(wait_base):
    policies: tuple[Policy, ...]

    def retries(self, failure: BaseException) -> bool:
        return any(policy.retries(failure) for policy in self.policies)

    def policy_for(self, retry_state: RetryCallState) -> Policy:
        failure = _failure(retry_state)
        return next(policy for policy in self.policies if policy.retries(failure))

    def __call__(self, retry_state: RetryCallState) -> float:
        return self.policy_for(retry_state)(retry_state)


@dataclass(frozen=True)
class _BeyondCap(stop_base):
    """A rate-limit wait is not attempted when the request's waits would then total more than
    `max_wait` (each wait within it, a loop of them is not)."""

    max_wait: float

    def __call__(self, retry_state: RetryCallState) -> bool:
        return isinstance(_failure(retry_state), RateLimited) and _total(retry_state) > self.max_wait


def _total(retry_state: RetryCallState) -> float:
    """The request's waits so far and the one upcoming."""
    return retry_state.idle_for + retry_state.upcoming_sleep


@dataclass(frozen=True)
class RetryPolicy:
    """The policies above with their shared settings, bounded by `max_attempts`."""

    max_attempts: int = 5
    backoff_initial: float = 0.5
    backoff_max: float = 30.0
    limit_wait: float = 60.0  # a 429 naming no wait: a minute, then doubling

    def retrying(
        self, *, sleep: Callable[[float], None], max_wait: float, on_retry: Callable[[str, float], None]
    ) -> Retrying:
        """A ``tenacity.Retrying`` for one request; `max_wait` caps its waits in all when a rate limit asks for more."""
        backoff = wait_exponential_jitter(
            multiplier=self.backoff_initial, jitter=self.backoff_initial, max=self.backoff_max
        )
        chain = _Chain(
            (
                RetryAfterPolicy(doubling=wait_exponential(multiplier=self.limit_wait)),
                ServerErrorPolicy(backoff=backoff),
                TransportPolicy(backoff=backoff),
            )
        )
        attempts = stop_after_attempt(self.max_attempts)

        beyond_cap = _BeyondCap(max_wait)

        def give_up(retry_state: RetryCallState) -> NoReturn:
            failure = _failure(retry_state)
            if isinstance(failure, RateLimited) and beyond_cap(retry_state):
                raise RateLimited(
                    failure.vendor,
                    f"{failure.message}; waiting {_total(retry_state):.0f}s would exceed the "
                    f"{max_wait:.0f}s a run waits",
                    status=failure.status,
                    said=failure.said,
                    retry_after=failure.retry_after,
                ) from None
            raise failure

        return Retrying(
            sleep=sleep,
            retry=retry_if_exception(chain.retries),
            wait=chain,
            stop=attempts | beyond_cap,
            before_sleep=lambda retry_state: on_retry(chain.policy_for(retry_state).kind, retry_state.upcoming_sleep),
            retry_error_callback=give_up,
        )
