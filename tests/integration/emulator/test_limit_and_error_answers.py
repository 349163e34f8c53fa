"""The rate-limit and error answers of the public service, in both dialects."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from emulator import EmulatorConfig, FaultSpec, RunningEmulator, running_emulator
from emulator.config import parse_fault_spec

from .conftest import TODAY

DOCS = {"service": "https://docs.service.example/rest", "github": "https://docs.github.com/rest"}


@pytest.fixture(scope="module", params=["service", "github"])
def dialect_emu(request: pytest.FixtureRequest) -> Iterator[RunningEmulator]:
    config = EmulatorConfig(seed=5, users=4, repos=2, issues_per_repo=3, today=TODAY, dialect=request.param)
    with running_emulator(config) as running:
        yield running


@pytest.fixture
def calm(dialect_emu: RunningEmulator) -> Iterator[RunningEmulator]:
    yield dialect_emu
    dialect_emu.set_faults(FaultSpec())


def _get(emu: RunningEmulator, path: str, **params: str) -> httpx.Response:
    headers = {"Authorization": f"Bearer {emu.credentials['token']}"}
    return httpx.get(emu.base_url + path, headers=headers, params=params)


def test_a_spent_budget_can_answer_without_a_reset_header(calm):
    calm.set_faults(FaultSpec(spend_rate_limit_for_seconds=120, omit_rate_limit_reset=True, limit_status=429))
    response = _get(calm, "/user")
    assert response.status_code == 429 and response.headers["x-ratelimit-remaining"] == "0"
    assert "x-ratelimit-reset" not in response.headers
    assert response.json()["documentation_url"].startswith(DOCS[calm.credentials["dialect"]])


def test_a_secondary_limit_can_answer_without_retry_after_and_spends_nothing(calm):
    used = _get(calm, "/user").headers["x-ratelimit-used"]
    calm.set_faults(FaultSpec(secondary_limit_rate=1.0, secondary_limit_kind="no_retry_after"))
    response = _get(calm, "/user")
    assert response.status_code == 403 and "retry-after" not in response.headers
    assert "secondary rate limit" in response.json()["message"]
    assert response.headers["x-ratelimit-used"] == used


def test_the_older_abuse_detection_answer_is_a_403_without_retry_after(calm):
    calm.set_faults(FaultSpec(secondary_limit_rate=1.0, secondary_limit_kind="abuse", limit_status=429))
    response = _get(calm, "/user")
    assert response.status_code == 403 and "retry-after" not in response.headers
    assert "abuse detection" in response.json()["message"]
    assert response.headers["x-ratelimit-remaining"] != "0"


def test_a_validation_failure_lists_its_fields_and_a_documentation_url(calm):
    repo = _get(calm, "/orgs/acme/repos").json()[0]["full_name"]
    response = _get(calm, f"/repos/{repo}/issues", state="bogus")
    body = response.json()
    assert response.status_code == 422 and body["message"] == "Validation Failed"
    assert body["errors"] == [{"resource": "Issue", "field": "state", "code": "invalid"}]
    assert body["documentation_url"].startswith(DOCS[calm.credentials["dialect"]])


def test_unknown_limit_answers_are_refused_by_the_admin_endpoint(calm):
    for bad in ({"secondary_limit_kind": "polite"}, {"limit_status": 418}, {"omit_rate_limit_reset": "maybe"}):
        response = httpx.post(calm.base_url + "/_emulator/faults", json=bad)
        assert response.status_code == 422, bad


def test_limit_answers_parse_from_the_cli_form():
    assert parse_fault_spec("omit_rate_limit_reset=true,secondary_limit_kind=abuse,limit_status=429") == FaultSpec(
        omit_rate_limit_reset=True, secondary_limit_kind="abuse", limit_status=429
    )
