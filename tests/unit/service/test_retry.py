"""RetryPolicy's Retrying alone: which failure is retried, after how long, and when it gives up."""

from dataclasses import dataclass

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tenacity import RetryCallState

from pipelines.service._retry import RetryPolicy
from pipelines.service.errors import (
    Misdirected,
    NotFound,
    PermissionDenied,
    RateLimited,
    SecondaryRateLimited,
    ServerError,
    ServiceError,
    TransportFailed,
    Unreachable,
)

NOW = 1_800_000_000.0
COMMON = {"method": "GET", "url": "http://h/x", "status": 403, "message": "m"}
POLICY = RetryPolicy(max_attempts=10)


@dataclass(frozen=True)
class Decision:
    """``wait`` seconds before the next attempt (of ``kind``), or None: the failure was raised (with ``advice``)."""

    wait: float | None
    kind: str = ""
    advice: str = ""


def _decide(failure, *, attempt=1, max_wait=900.0, repeatable=True, policy=POLICY) -> Decision:
    """What the policy's Retrying does once ``failure`` ended attempt number ``attempt``."""
    retried: list[Decision] = []
    retrying = policy.retrying(
        clock=lambda: NOW,
        sleep=lambda _: None,
        max_wait=max_wait,
        repeatable=lambda _: repeatable,
        on_retry=lambda kind, wait: retried.append(Decision(wait=wait, kind=kind)),
    )
    retrying.begin()
    state = RetryCallState(retrying, fn=None, args=(), kwargs={})
    state.attempt_number = attempt
    state.set_exception((type(failure), failure, None))
    try:
        retrying.iter(state)
    except ServiceError as raised:
        assert raised is failure
        return Decision(wait=None, advice=getattr(failure, "advice", ""))
    return retried[0]


def test_a_spent_limit_with_a_reset_waits_until_it_plus_the_buffer() -> None:
    decision = _decide(RateLimited(**COMMON, reset_at=NOW + 100))
    assert (decision.wait, decision.kind) == (102.0, "rate_limit")


@given(attempt=st.integers(min_value=1, max_value=9))
def test_a_limit_without_a_time_to_wait_waits_a_minute_then_doubles(attempt: int) -> None:
    for failure in (RateLimited(**COMMON, reset_at=None), SecondaryRateLimited(**COMMON, retry_after=None)):
        wait = _decide(failure, attempt=attempt, max_wait=float("inf")).wait
        assert wait == 60.0 * 2 ** (attempt - 1) and wait >= 60.0


@pytest.mark.parametrize("retry_after", [None, 0.0, -5.0])
def test_an_unusable_retry_after_counts_as_none(retry_after) -> None:
    assert _decide(SecondaryRateLimited(**COMMON, retry_after=retry_after)).wait == 60.0


def test_a_usable_retry_after_is_honoured() -> None:
    decision = _decide(SecondaryRateLimited(**COMMON, retry_after=7.0))
    assert (decision.wait, decision.kind) == (7.0, "secondary_rate_limit")


@pytest.mark.parametrize(
    "failure",
    [
        RateLimited(**COMMON, reset_at=None),
        RateLimited(**COMMON, reset_at=NOW + 3600),
        SecondaryRateLimited(**COMMON, retry_after=None),
        SecondaryRateLimited(**COMMON, retry_after=120.0),
    ],
)
def test_a_limit_wait_beyond_the_cap_gives_up_saying_how_long_and_which_setting(failure) -> None:
    decision = _decide(failure, max_wait=30.0)
    assert decision.wait is None
    assert "would exceed SERVICE_RATE_LIMIT_MAX_WAIT (30s)" in decision.advice
    assert decision.advice.startswith("Waiting ")


@given(attempt=st.integers(min_value=1, max_value=9))
def test_server_errors_back_off_within_the_maximum(attempt: int) -> None:
    policy = RetryPolicy(max_attempts=10, backoff_initial=1.0, backoff_max=8.0)
    wait = _decide(ServerError(**COMMON | {"status": 502}), attempt=attempt, policy=policy).wait
    assert wait is not None and min(2 ** (attempt - 1), 8.0) <= wait <= 8.0


def test_the_last_attempt_is_never_followed_by_another() -> None:
    assert _decide(ServerError(**COMMON | {"status": 500}), attempt=10).wait is None


def test_a_limit_out_of_attempts_gives_no_advice_about_the_cap() -> None:
    # A longer cap would not bring another attempt, so the error does not suggest one.
    decision = _decide(RateLimited(**COMMON, reset_at=NOW + 3600), attempt=10, max_wait=30.0)
    assert (decision.wait, decision.advice) == (None, "")


def _lost_answer() -> TransportFailed:
    return TransportFailed(method="GET", url="http://h/x", reason="ReadError", may_have_arrived=True)


@given(
    max_attempts=st.integers(min_value=1, max_value=8),
    initial=st.floats(min_value=0.01, max_value=5.0),
    cap=st.floats(min_value=0.01, max_value=60.0),
    kind=st.sampled_from(["server_error", "transport"]),
)
def test_backoff_waits_stay_within_base_and_cap_and_attempts_stop_at_the_maximum(
    max_attempts: int, initial: float, cap: float, kind: str
) -> None:
    policy = RetryPolicy(max_attempts=max_attempts, backoff_initial=initial, backoff_max=cap)
    make = {"server_error": lambda: ServerError(**COMMON | {"status": 503}), "transport": _lost_answer}[kind]
    calls: list[ServiceError] = []
    sleeps: list[float] = []
    kinds: list[str] = []

    def call() -> None:
        calls.append(make())
        raise calls[-1]

    retrying = policy.retrying(
        clock=lambda: NOW,
        sleep=sleeps.append,
        max_wait=900.0,
        repeatable=lambda _: True,
        on_retry=lambda kind, _: kinds.append(kind),
    )
    with pytest.raises(ServiceError) as info:
        retrying(call)
    assert info.value is calls[-1]
    assert len(calls) == max_attempts and kinds == [kind] * (max_attempts - 1) and len(sleeps) == max_attempts - 1
    for attempt, wait in enumerate(sleeps, start=1):
        base = initial * 2 ** (attempt - 1)
        assert min(base, cap) <= wait <= min(base + initial, cap)


def test_a_host_that_never_answered_is_not_retried() -> None:
    failure = Unreachable(method="GET", url="http://h/x", reason="nothing listens at h:80", setting="SERVICE_BASE_URL")
    assert _decide(failure).wait is None


def test_a_write_that_may_have_arrived_is_not_repeated() -> None:
    lost = TransportFailed(method="POST", url="http://h/x", reason="ReadError", may_have_arrived=True)
    refused = TransportFailed(method="POST", url="http://h/x", reason="ConnectError", may_have_arrived=False)
    assert _decide(lost, repeatable=False).wait is None
    assert _decide(lost, repeatable=True).kind == "transport"
    assert _decide(refused, repeatable=False).kind == "transport"


@pytest.mark.parametrize(
    "failure",
    [
        PermissionDenied(**COMMON, hint="h"),
        NotFound(**COMMON | {"status": 404}),
        Misdirected(**COMMON | {"status": 415}),
    ],
)
def test_answers_that_will_not_change_are_not_retried(failure) -> None:
    assert _decide(failure).wait is None
