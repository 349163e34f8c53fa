"""The vendor client: every error one line naming the vendor, the cause and what to do; rate
limits wait what the vendor says; the vendor's clock read from its Date header."""

from datetime import UTC, datetime

import httpx
import pytest

from pipelines.vendors import Denied, Malformed, RateLimited, ServerError, Unreachable
from pipelines.vendors._secret import Key
from pipelines.vendors.config import vendor_config
from tests.unit.vendors._answers import CLAUDE_KEY, answer, client


def _anthropic_error(status: int, kind: str, message: str, headers: dict[str, str] | None = None) -> httpx.Response:
    return answer({"type": "error", "error": {"type": kind, "message": message}}, status, headers)


def test_a_refused_key_is_one_line_naming_the_vendor_the_setting_and_the_key_it_needs() -> None:
    refusal = _anthropic_error(401, "authentication_error", "invalid x-api-key")
    with client("claude_code", lambda r: refusal) as c, pytest.raises(Denied) as raised:
        c.get("/v1/organizations/usage_report/claude_code")
    line = str(raised.value)
    assert "\n" not in line
    assert line.startswith("Claude Code (Anthropic Admin API): the key in CLAUDE_CODE_KEY was refused (401 invalid")
    assert "Admin API key (sk-ant-admin" in line
    assert CLAUDE_KEY not in line
    assert c.calls == 1  # a refused key is never asked again


def test_cursor_s_refusal_says_its_message_and_the_team_admin_key() -> None:
    refusal = answer({"error": "Unauthorized", "message": "Invalid API key"}, 401)
    with client("cursor", lambda r: refusal) as c, pytest.raises(Denied) as raised:
        c.get("/teams/members")
    assert "(401 Invalid API key)" in str(raised.value)
    assert "team Admin API key" in str(raised.value)


def test_a_rate_limit_waits_the_seconds_retry_after_says_then_asks_again() -> None:
    answers = iter([answer({"error": "Too Many Requests", "message": "m"}, 429, {"Retry-After": "60"}), answer({})])
    sleeps: list[float] = []
    with client("cursor", lambda r: next(answers), sleeps=sleeps) as c:
        assert c.get("/teams/members").body == {}
    assert sleeps == [60.0]
    assert c.retries == {"rate_limit": 1}


def test_a_rate_limit_longer_than_a_run_waits_is_raised_at_once_saying_so() -> None:
    limited = _anthropic_error(429, "rate_limit_error", "exceeded", {"retry-after": "600"})
    sleeps: list[float] = []
    with (
        client("claude_code", lambda r: limited, sleeps=sleeps, max_wait=120) as c,
        pytest.raises(RateLimited) as raised,
    ):
        c.get("/v1/x")
    assert sleeps == []
    assert str(raised.value).endswith("(rate limited); waiting 600s would exceed the 120s a run waits")


def test_a_server_error_is_tried_again_and_the_last_one_said() -> None:
    overloaded = _anthropic_error(529, "overloaded_error", "Overloaded")
    with client("claude_code", lambda r: overloaded) as c, pytest.raises(ServerError) as raised:
        c.get("/v1/x")
    assert c.calls == 5
    assert str(raised.value) == "Claude Code (Anthropic Admin API): GET /v1/x answered 529 Overloaded"


def test_a_host_that_never_answers_names_the_address_setting_and_is_not_asked_twice() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    with client("cursor", refuse) as c, pytest.raises(Unreachable) as raised:
        c.get("/teams/members")
    assert c.calls == 1
    assert "is CURSOR_URL right?" in str(raised.value)


def test_a_body_that_is_not_json_is_malformed() -> None:
    with client("cursor", lambda r: httpx.Response(200, content=b"<html>")) as c, pytest.raises(Malformed):
        c.get("/teams/members")


def test_the_vendor_s_clock_is_its_date_header() -> None:
    with client("cursor", lambda r: answer({})) as c:
        assert c.get("/teams/members").served_at == datetime(2026, 11, 28, 10, tzinfo=UTC)
    with client("cursor", lambda r: httpx.Response(200, json={})) as c:
        assert c.get("/teams/members").served_at is None


def test_an_address_that_is_not_http_is_refused_naming_its_setting() -> None:
    with pytest.raises(ValueError, match="ANTHROPIC_BASE_URL must start with http"):
        vendor_config(
            "claude_code", key=Key(CLAUDE_KEY), base_url="ftp://x", key_setting="K", url_setting="ANTHROPIC_BASE_URL"
        )
