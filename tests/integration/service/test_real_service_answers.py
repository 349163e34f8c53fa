"""The public service's rate-limit, error and misconfiguration answers, over loopback in both dialects.

Every wait goes through the fake clock: a 60 s wait is asserted as a requested sleep, never slept.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from emulator import EmulatorConfig, FaultSpec, RunningEmulator, running_emulator
from pipelines.service import (
    ConfigError,
    Misdirected,
    RateLimited,
    RequestFailed,
    RetryPolicy,
    SecondaryRateLimited,
    ServiceClient,
    TransportFailed,
    Unreachable,
)

from .conftest import TODAY, config_for

DOCS = {"service": "https://docs.service.example/rest", "github": "https://docs.github.com/rest"}
OTHER = {"service": "github", "github": "service"}


@pytest.fixture(scope="module", params=["service", "github"])
def any_emu(request: pytest.FixtureRequest) -> Iterator[RunningEmulator]:
    config = EmulatorConfig(seed=3, users=4, repos=2, issues_per_repo=3, today=TODAY, dialect=request.param)
    with running_emulator(config) as running:
        yield running


@pytest.fixture
def world(any_emu: RunningEmulator) -> Iterator[RunningEmulator]:
    yield any_emu
    any_emu.set_faults(FaultSpec())


_DEFAULT_RETRY = RetryPolicy()


def _client(emu, tmp_path, clock, *, retry: RetryPolicy = _DEFAULT_RETRY, **extra) -> ServiceClient:
    return ServiceClient(config=config_for(emu, tmp_path, **extra), clock=clock, sleep=clock.sleep, retry=retry)


def _clear_after(emu: RunningEmulator, clock, sleeps: int) -> None:
    """The limit lifts while the client waits its `sleeps`-th wait."""
    clock.on_sleep = lambda: emu.set_faults(FaultSpec()) if len(clock.sleeps) >= sleeps else None


@pytest.mark.parametrize("status", [403, 429])
def test_a_spent_budget_without_reset_is_a_rate_limit_that_waits_a_minute(world, tmp_path, clock, status) -> None:
    world.set_faults(FaultSpec(spend_rate_limit_for_seconds=600, omit_rate_limit_reset=True, limit_status=status))
    _clear_after(world, clock, 2)
    with _client(world, tmp_path, clock) as client:
        assert client.get_json(path="/orgs/acme/members", conditional=False)
        assert client.stats.retries == {"rate_limit": 2}
    assert clock.sleeps == [60.0, 120.0]


def test_a_limit_wait_beyond_the_cap_fails_at_once_naming_wait_and_setting(world, tmp_path, clock) -> None:
    world.set_faults(FaultSpec(spend_rate_limit_for_seconds=600, omit_rate_limit_reset=True))
    with _client(world, tmp_path, clock, SERVICE_RATE_LIMIT_MAX_WAIT="30") as client:
        with pytest.raises(RateLimited) as info:
            client.get_json(path="/orgs/acme/members", conditional=False)
        assert client.stats.requests == 1
    text = str(info.value)
    assert "no reset time given" in text and "Waiting 60s would exceed SERVICE_RATE_LIMIT_MAX_WAIT (30s)" in text
    assert info.value.documentation_url.startswith(DOCS[world.credentials["dialect"]])
    assert clock.sleeps == []


@pytest.mark.parametrize("kind", ["no_retry_after", "abuse"])
def test_a_secondary_limit_without_retry_after_waits_a_minute_then_doubles(world, tmp_path, clock, kind) -> None:
    world.set_faults(FaultSpec(secondary_limit_rate=1.0, secondary_limit_kind=kind))
    _clear_after(world, clock, 2)
    with _client(world, tmp_path, clock) as client:
        assert client.get_json(path="/orgs/acme/members", conditional=False)
        assert client.stats.retries == {"secondary_rate_limit": 2}
    assert clock.sleeps == [60.0, 120.0]


def test_an_abuse_detection_answer_past_the_cap_is_a_secondary_limit(world, tmp_path, clock) -> None:
    world.set_faults(FaultSpec(secondary_limit_rate=1.0, secondary_limit_kind="abuse"))
    with (
        _client(world, tmp_path, clock, SERVICE_RATE_LIMIT_MAX_WAIT="0") as client,
        pytest.raises(SecondaryRateLimited, match=r"abuse detection.*SERVICE_RATE_LIMIT_MAX_WAIT"),
    ):
        client.get_json(path="/orgs/acme/members", conditional=False)
    assert clock.sleeps == []


def test_budgets_are_kept_per_resource(world, tmp_path, clock) -> None:
    with _client(world, tmp_path, clock) as client:
        client.get_json(path="/orgs/acme/members", conditional=False)
        core = client.budgets["core"]
        client.graphql(query="query { viewer { login } }")
        budgets = client.budgets
    assert budgets["core"] == core and core.resource == "core"
    assert budgets["graphql"].resource == "graphql" and budgets["graphql"].used >= 1


def test_rate_limit_fills_the_budget_of_every_resource_it_lists(world, tmp_path, clock) -> None:
    with _client(world, tmp_path, clock) as client:
        body = client.rate_limit()
        budgets = client.budgets
    assert set(body["resources"]) <= set(budgets)
    assert budgets["graphql"].remaining == body["resources"]["graphql"]["remaining"]


def test_a_validation_failure_keeps_its_errors_and_documentation_url(world, tmp_path, clock) -> None:
    with _client(world, tmp_path, clock) as client:
        repo = next(client.paginate(path="/orgs/acme/repos"))["full_name"]
        with pytest.raises(RequestFailed) as info:
            client.get_json(path=f"/repos/{repo}/issues", params={"state": "bogus"})
        assert client.stats.retries == {}
    exc = info.value
    assert exc.status == 422 and [(d.resource, d.field, d.code) for d in exc.details] == [("Issue", "state", "invalid")]
    assert exc.documentation_url.startswith(DOCS[world.credentials["dialect"]])
    assert "Validation Failed (Issue.state invalid)" in str(exc) and exc.documentation_url in str(exc)


@pytest.mark.parametrize("path", ["/rate_limit", "/orgs/acme/{product}/metrics/reports/organization-28-day/latest"])
def test_a_server_of_the_other_dialect_is_named_at_once(world, tmp_path, clock, path) -> None:
    other = OTHER[world.credentials["dialect"]]
    with _client(world, tmp_path, clock, SERVICE_DIALECT=other) as client:
        with pytest.raises(Misdirected) as info:
            client.get_json(path=path.format(product=client.dialect.product), conditional=False)
        assert client.stats.requests == 1
    assert f"set SERVICE_DIALECT={world.credentials['dialect']}" in str(info.value)


def test_a_404_on_rate_limit_says_the_base_url_is_not_the_api_root(world, tmp_path, clock) -> None:
    with _client(world, tmp_path, clock, SERVICE_BASE_URL=world.base_url + "/web") as client:
        with pytest.raises(Misdirected) as info:
            client.rate_limit()
        assert client.stats.requests == 1
    assert "/rate_limit answered 404: SERVICE_BASE_URL does not point at the API root" in str(info.value)
    assert "/api/v3" in str(info.value) and "\n" not in str(info.value)


def test_a_base_url_without_a_scheme_fails_before_any_request(world, tmp_path, clock) -> None:
    address = world.base_url.removeprefix("http://")
    with pytest.raises(ConfigError, match=r"^SERVICE_BASE_URL must start with http:// or https://$"):
        _client(world, tmp_path, clock, SERVICE_BASE_URL=address)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_nothing_listening_at_the_base_url_fails_at_once_naming_the_setting(world, tmp_path, clock) -> None:
    port = _closed_port()
    with _client(world, tmp_path, clock, SERVICE_BASE_URL=f"http://127.0.0.1:{port}") as client:
        with pytest.raises(Unreachable) as info:
            client.rate_limit()
        assert client.stats.requests == 1
    assert str(info.value) == (
        f"GET http://127.0.0.1:{port}/rate_limit got no answer: "
        f"nothing listens at 127.0.0.1:{port}: check SERVICE_BASE_URL"
    )
    assert clock.sleeps == []


def test_an_unresolvable_host_fails_at_once_naming_the_setting(world, tmp_path, clock) -> None:
    with (
        _client(world, tmp_path, clock, SERVICE_BASE_URL="http://no-such-host.invalid") as client,
        pytest.raises(Unreachable, match=r"no-such-host.invalid does not resolve: check SERVICE_BASE_URL"),
    ):
        client.rate_limit()
    assert clock.sleeps == []


def test_a_host_that_answered_once_and_then_refuses_is_retried(tmp_path, clock) -> None:
    policy = RetryPolicy(max_attempts=3)
    with running_emulator(EmulatorConfig(seed=4, users=2, repos=1, issues_per_repo=1, today=TODAY)) as gone:
        client = _client(gone, tmp_path, clock, retry=policy)
        client.rate_limit()
    with client, pytest.raises(TransportFailed) as info:
        client.rate_limit()
    assert not isinstance(info.value, Unreachable)
    assert client.stats.retries == {"transport": 2} and len(clock.sleeps) == 2
