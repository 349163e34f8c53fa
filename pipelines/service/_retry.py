"""Retry decisions on tenacity, apart from the HTTP: which failure is tried again, after how long, when to stop.

Each kind of failure has a small policy, a tenacity wait strategy that also says which failures
it retries; :meth:`RetryPolicy.retrying` chains them into a ``tenacity.Retrying`` in which the
first policy that retries a failure decides its wait. The waits follow the public service's
rules: a spent primary limit waits until its reset (plus a buffer); a limit that names no time
to wait (a primary limit without ``x-ratelimit-reset``, a secondary limit without a usable
``retry-after``) waits at least a minute, then doubles; 5xx and lost connections back off
exponentially with jitter. A rate-limit wait beyond the configured cap is not attempted: the
failure is raised at once, saying how long it would have waited.
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

from pipelines.service.errors import (
    RateLimited,
    RequestFailed,
    SecondaryRateLimited,
    ServerError,
    TransportFailed,
    Unreachable,
)

__all__ = [
    "Policy",
    "RateLimitPolicy",
    "RetryPolicy",
    "SecondaryRateLimitPolicy",
    "ServerErrorPolicy",
    "TransportPolicy",
]


def _failure(retry_state: RetryCallState) -> BaseException:
    # Tenacity asks wait, stop and the callbacks only once ``retry`` chose to retry a failure.
    return cast(BaseException, cast(Future, retry_state.outcome).exception())


class Policy(wait_base):
    """One kind of failure: ``retries`` says whether it is tried again, the call how long to wait first."""

    kind: ClassVar[str]

    @abstractmethod
    def retries(self, failure: BaseException) -> bool: ...


@dataclass(frozen=True)
class RateLimitPolicy(Policy):
    """A spent primary limit: wait until its reset plus ``buffer``, else ``doubling``."""

    buffer: float
    doubling: wait_base
    clock: Callable[[], float]
    kind: ClassVar[str] = "rate_limit"

    def retries(self, failure: BaseException) -> bool:
        return isinstance(failure, RateLimited)

    def __call__(self, retry_state: RetryCallState) -> float:
        failure = _failure(retry_state)
        if isinstance(failure, RateLimited) and failure.reset_at is not None:
            return max(0.0, failure.reset_at - self.clock()) + self.buffer
        return self.doubling(retry_state)


@dataclass(frozen=True)
class SecondaryRateLimitPolicy(Policy):
    """A secondary limit: its ``retry-after`` when usable, else ``doubling``."""

    doubling: wait_base
    kind: ClassVar[str] = "secondary_rate_limit"

    def retries(self, failure: BaseException) -> bool:
        return isinstance(failure, SecondaryRateLimited)

    def __call__(self, retry_state: RetryCallState) -> float:
        failure = _failure(retry_state)
        given = failure.retry_after if isinstance(failure, SecondaryRateLimited) else None
        return given if given is not None and given > 0 else self.doubling(retry_state)


@dataclass(frozen=True)
class ServerErrorPolicy(Policy):
    """A 5xx: ``backoff``."""

    backoff: wait_base
    kind: ClassVar[str] = "server_error"

    def retries(self, failure: BaseException) -> bool:
        return isinstance(failure, ServerError)

    def __call__(self, retry_state: RetryCallState) -> float:
        return self.backoff(retry_state)


@dataclass(frozen=True)
class TransportPolicy(Policy):
    """No answer: retried after ``backoff`` when the request may be sent twice or surely never arrived.

    A host that never answered is a wrong address, not an outage: never retried.
    """

    backoff: wait_base
    repeatable: Callable[[TransportFailed], bool]
    kind: ClassVar[str] = "transport"

    def retries(self, failure: BaseException) -> bool:
        return (
            isinstance(failure, TransportFailed)
            and not isinstance(failure, Unreachable)
            and (not failure.may_have_arrived or self.repeatable(failure))
        )

    def __call__(self, retry_state: RetryCallState) -> float:
        return self.backoff(retry_state)


@dataclass(frozen=True)
class _Chain(wait_base):
    """The policies in turn: the first that retries a failure decides its wait and its kind."""

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
    """A rate-limit wait longer than ``max_wait`` is not attempted."""

    max_wait: float

    def __call__(self, retry_state: RetryCallState) -> bool:
        limited = isinstance(_failure(retry_state), (RateLimited, SecondaryRateLimited))
        return limited and retry_state.upcoming_sleep > self.max_wait


@dataclass(frozen=True)
class RetryPolicy:
    """The policies above with their shared settings, bounded by ``max_attempts``."""

    max_attempts: int = 5
    backoff_initial: float = 0.5
    backoff_max: float = 30.0
    rate_limit_buffer: float = 2.0
    # The public docs: without a time to wait, wait at least one minute, then back off exponentially.
    limit_wait: float = 60.0

    def retrying(
        self,
        *,
        clock: Callable[[], float],
        sleep: Callable[[float], None],
        max_wait: float,
        repeatable: Callable[[TransportFailed], bool],
        on_retry: Callable[[str, float], None],
    ) -> Retrying:
        """A ``tenacity.Retrying`` for one request, told the failure's kind and wait before each sleep.

        ``max_wait`` caps a rate-limit wait; ``repeatable`` says whether the failed request may be
        sent twice (a read), which matters when a failed connection may have delivered it. A
        failure no policy retries (401, 403, 404, a misdirection, …) will not change: it is raised.
        """
        # Up to ``backoff_initial`` seconds of jitter, so clients that failed together spread out.
        backoff = wait_exponential_jitter(
            multiplier=self.backoff_initial, jitter=self.backoff_initial, max=self.backoff_max
        )
        doubling = wait_exponential(multiplier=self.limit_wait)
        chain = _Chain(
            (
                RateLimitPolicy(buffer=self.rate_limit_buffer, doubling=doubling, clock=clock),
                SecondaryRateLimitPolicy(doubling=doubling),
                ServerErrorPolicy(backoff=backoff),
                TransportPolicy(backoff=backoff, repeatable=repeatable),
            )
        )
        attempts = stop_after_attempt(self.max_attempts)
        cap = _BeyondCap(max_wait=max_wait)

        def give_up(retry_state: RetryCallState) -> NoReturn:
            failure = _failure(retry_state)
            # Out of attempts, a longer cap would change nothing: only the cap alone gives advice.
            if isinstance(failure, RequestFailed) and cap(retry_state) and not attempts(retry_state):
                failure.advise(
                    f"Waiting {retry_state.upcoming_sleep:.0f}s would exceed SERVICE_RATE_LIMIT_MAX_WAIT "
                    f"({max_wait:.0f}s): raise it, or run again later"
                )
            raise failure

        return Retrying(
            sleep=sleep,
            retry=retry_if_exception(chain.retries),
            wait=chain,
            stop=attempts | cap,
            before_sleep=lambda retry_state: on_retry(chain.policy_for(retry_state).kind, retry_state.upcoming_sleep),
            retry_error_callback=give_up,
        )
