"""A vendor's credentials as ``httpx.Auth`` flows.

Anthropic's Admin API takes the key in ``x-api-key`` with the API version in
``anthropic-version``; Cursor's Admin API takes HTTP Basic with the key as the user name and an
empty password (docs/vendors.md). The key is read from its `Key` only as the header is set.
"""

from __future__ import annotations

import base64
from collections.abc import Generator

import httpx

from pipelines.vendors._secret import Key, hide

__all__ = ["AnthropicAuth", "BasicKeyAuth"]

_Flow = Generator[httpx.Request, httpx.Response, None]


class AnthropicAuth(httpx.Auth):
    """`x-api-key` and `anthropic-version` on every request."""

    def __init__(self, *, key: Key, version: str) -> None:
        self._key = key
        self.version = version

    def auth_flow(self, request: httpx.Request) -> _Flow:
        request.headers["x-api-key"] = self._key.reveal()
        request.headers["anthropic-version"] = self.version
        yield request

    def __repr__(self) -> str:
        return f"AnthropicAuth(version={self.version!r})"


class BasicKeyAuth(httpx.Auth):
    """HTTP Basic: the key as the user name, no password (`curl -u KEY:`)."""

    def __init__(self, *, key: Key) -> None:
        self._token = base64.b64encode(f"{key.reveal()}:".encode()).decode()
        hide(self._token)  # as much a credential as the key: an echoed header is redacted alike

    def auth_flow(self, request: httpx.Request) -> _Flow:
        request.headers["Authorization"] = f"Basic {self._token}"
        yield request

    def __repr__(self) -> str:
        return "BasicKeyAuth()"
