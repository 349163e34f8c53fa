"""Each vendor's key goes as that vendor takes it, and is never shown."""

import base64

import httpx

from pipelines.vendors import Key
from pipelines.vendors.auth import AnthropicAuth, BasicKeyAuth
from tests.unit.vendors._answers import CLAUDE_KEY, CURSOR_KEY, answer, client


def _sent(name: str) -> httpx.Request:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answer({"teamMembers": [], "data": []})

    with client(name, handler) as c:
        c.get("/x")
    return seen[0]


def test_anthropic_takes_the_admin_key_in_x_api_key_with_the_api_version() -> None:
    request = _sent("claude_code")
    assert request.headers["x-api-key"] == CLAUDE_KEY
    assert request.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in request.headers


def test_cursor_takes_the_key_as_the_basic_user_name_with_no_password() -> None:
    request = _sent("cursor")
    scheme, _, token = request.headers["authorization"].partition(" ")
    assert scheme == "Basic"
    assert base64.b64decode(token).decode() == f"{CURSOR_KEY}:"
    assert "x-api-key" not in request.headers


def test_no_repr_shows_the_key() -> None:
    key = Key("sk-ant-admin01-very-secret")
    for shown in (repr(key), str(key), repr(AnthropicAuth(key=key, version="v")), repr(BasicKeyAuth(key=key))):
        assert "very-secret" not in shown
