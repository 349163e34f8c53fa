from datetime import UTC, datetime

import pytest

from emulator import FaultSpec
from pipelines.service import (
    NotFound,
    PermissionDenied,
    RateLimited,
    RetryPolicy,
    ServerError,
    ServiceClient,
    TransportFailed,
)

from .conftest import config_for

MEMBERS = "/orgs/acme/members"
REPORT = "/orgs/acme/assistant/metrics/reports/organization-28-day/latest"


def _client(emu, tmp_path, clock, **extra):
    return ServiceClient(config=config_for(emu, tmp_path, **extra), clock=clock, sleep=clock.sleep)


def test_spent_rate_limit_waits_until_the_reset_then_succeeds(emu, tmp_path, clock) -> None:
    emu.set_faults(FaultSpec(spend_rate_limit_for_seconds=300))
    clock.on_sleep = lambda: emu.set_faults(FaultSpec())  # the reset arrives while we wait
    with _client(emu, tmp_path, clock) as client:
        members = client.get_json(path=MEMBERS, conditional=False)
        stats = client.stats
    assert members and all("login" in m for m in members)
    assert stats.retries == {"rate_limit": 1}
    # Until the reset (about 300 s out) plus the 2 s buffer, on the fake clock only.
    assert len(clock.sleeps) == 1 and 295 <= clock.sleeps[0] <= 305


def test_a_wait_beyond_the_cap_fails_at_once_naming_the_reset(emu, tmp_path, clock) -> None:
    emu.set_faults(FaultSpec(spend_rate_limit_for_seconds=3600))
    with _client(emu, tmp_path, clock, SERVICE_RATE_LIMIT_MAX_WAIT="60") as client:
        with pytest.raises(RateLimited) as info:
            client.get_json(path=MEMBERS, conditional=False)
        assert client.stats.requests == 1
    reset = datetime.fromtimestamp(info.value.reset_at, tz=UTC).isoformat(timespec="seconds")
    assert reset in str(info.value)
    assert "SERVICE_RATE_LIMIT_MAX_WAIT" in str(info.value)
    assert clock.sleeps == []


def test_secondary_limit_honours_retry_after(emu, tmp_path, clock) -> None:
    emu.set_faults(FaultSpec(secondary_limit_rate=1.0))
    clock.on_sleep = lambda: emu.set_faults(FaultSpec())
    with _client(emu, tmp_path, clock) as client:
        assert client.get_json(path=MEMBERS, conditional=False)
        assert client.stats.retries == {"secondary_rate_limit": 1}
    assert clock.sleeps == [60.0]


def test_a_permission_403_is_not_retried_and_says_what_is_missing(emu, tmp_path, clock) -> None:
    with _client(emu, tmp_path, clock, auth="limited") as client:
        with pytest.raises(PermissionDenied) as info:
            client.get_json(path=REPORT, conditional=False)
        assert client.stats.requests == 1
    text = str(info.value)
    assert REPORT in text and "organization owner role" in text and "metrics permission" in text
    assert "Resource not accessible" in text  # the server's own words
    assert clock.sleeps == []


def test_a_disabled_policy_is_named_as_such(emu, tmp_path, clock) -> None:
    emu.set_policy(scope="organization", name="acme", enabled=False)
    with (
        _client(emu, tmp_path, clock) as client,
        pytest.raises(PermissionDenied, match="policy is disabled for this organization"),
    ):
        client.get_json(path=REPORT, conditional=False)


def test_a_burst_of_server_errors_is_retried_with_growing_backoff(emu, tmp_path, clock) -> None:
    emu.set_faults(FaultSpec(error_rate=1.0))
    policy = RetryPolicy(max_attempts=4, backoff_initial=1.0, backoff_max=30.0)
    with ServiceClient(config=config_for(emu, tmp_path), clock=clock, sleep=clock.sleep, retry=policy) as client:
        with pytest.raises(ServerError) as info:
            client.get_json(path=MEMBERS, conditional=False)
        assert client.stats.retries == {"server_error": 3}
    assert info.value.status in (500, 502)
    assert [int(s) for s in clock.sleeps] == [1, 2, 4]

    clock.sleeps.clear()
    clock.on_sleep = lambda: emu.set_faults(FaultSpec())
    with ServiceClient(config=config_for(emu, tmp_path), clock=clock, sleep=clock.sleep, retry=policy) as client:
        assert client.get_json(path=MEMBERS, conditional=False)
    assert len(clock.sleeps) == 1


def test_dropped_connections_are_retried_then_reported(emu, tmp_path, clock) -> None:
    emu.set_faults(FaultSpec(drop_rate=1.0))
    with _client(emu, tmp_path, clock) as client:
        with pytest.raises(TransportFailed) as info:
            client.get_json(path=MEMBERS, conditional=False)
        assert client.stats.retries == {"transport": 4}
    assert "GET" in repr(info.value) and MEMBERS in repr(info.value)

    clock.on_sleep = lambda: emu.set_faults(FaultSpec())
    with _client(emu, tmp_path, clock) as client:
        assert client.get_json(path=MEMBERS, conditional=False)


def test_not_found_carries_the_server_message_and_is_not_retried(emu, tmp_path, clock) -> None:
    with _client(emu, tmp_path, clock) as client:
        with pytest.raises(NotFound) as info:
            client.get_json(path="/repos/acme/no-such-repo")
        assert client.stats.requests == 1
    assert info.value.status == 404 and info.value.message
