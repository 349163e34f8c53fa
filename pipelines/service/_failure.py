"""What an error answer or a missing answer means: one ServiceError naming the cause and the fix.

Permission problems, 401, 404 and configuration mistakes (a host that never answered, a server
of the other dialect, a base URL that is not the API root) get their own types, so the retry
policy never repeats them and a person reads what to change.
"""

from __future__ import annotations

import socket
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx

from pipelines.service._stats import to_float
from pipelines.service.billing_wire import BILLING_ROLES
from pipelines.service.dialect import DIALECTS, Dialect
from pipelines.service.errors import (
    AuthenticationFailed,
    ErrorDetail,
    LinkExpired,
    Misdirected,
    NotFound,
    PermissionDenied,
    RateLimited,
    RequestFailed,
    SecondaryRateLimited,
    ServerError,
    ServiceError,
    TransportFailed,
    Unreachable,
    VersionRejected,
    redact_url,
)

_TOKEN_ADVICE = "Check SERVICE_TOKEN (or run `metrics-etl login`)."
_APP_ADVICE = "Check SERVICE_APP_ID, the app private key and SERVICE_INSTALLATION_ID."


def failure(*, response: httpx.Response, dialect: Dialect) -> ServiceError:
    """The error for a 4xx/5xx answer to ``response.request`` (the token exchange included)."""
    method, url = response.request.method, str(response.request.url)
    path = urlsplit(url).path
    status = response.status_code
    message, documentation_url, details = _error_body(response)
    common: dict[str, Any] = {
        "method": method,
        "url": url,
        "status": status,
        "message": message,
        "documentation_url": documentation_url,
        "details": details,
    }
    headers = response.headers
    text = message.lower()
    if status in (403, 429) and headers.get("x-ratelimit-remaining") == "0":
        return RateLimited(**common, reset_at=to_float(headers.get("x-ratelimit-reset")))
    # 429 is always a limit; a 403 is one when it says so ("abuse detection" is the older wording).
    if status == 429 or (
        status == 403 and ("retry-after" in headers or "secondary rate limit" in text or "abuse detection" in text)
    ):
        return SecondaryRateLimited(**common, retry_after=to_float(headers.get("retry-after")))
    if status == 401:
        # A refused token exchange means the app's own credentials are wrong, not a token.
        advice = _APP_ADVICE if path.endswith("/access_tokens") else _TOKEN_ADVICE
        return AuthenticationFailed(**common, advice=advice)
    if misdirection := _misdirection(status=status, path=path, headers=headers, text=text, dialect=dialect):
        return Misdirected(**common, advice=misdirection)
    if "version" in text and status in (400, 406, 410, 415, 422):
        return VersionRejected(**common, advice="Check SERVICE_API_VERSION.")
    if status == 403:
        return PermissionDenied(**common, hint=_permission_hint(path=path, message=message))
    if status == 404:
        return NotFound(**common)
    if status >= 500:
        return ServerError(**common)
    return RequestFailed(**common)


def _connect_problem(url: str, exc: httpx.ConnectError) -> str:
    """What a failed connection says about the address, in a few words."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    cause = exc.__context__ or exc.__cause__
    while cause is not None and not isinstance(cause, OSError):
        cause = cause.__context__ or cause.__cause__
    if isinstance(cause, socket.gaierror) or "name or service not known" in str(exc).lower():
        return f"the host name {parts.hostname} does not resolve"
    if isinstance(cause, ConnectionRefusedError) or "refused" in str(exc).lower():
        return f"nothing listens at {parts.hostname}:{port}"
    return f"cannot connect to {parts.hostname}:{port} ({exc})"


def _misdirection(*, status: int, path: str, headers: httpx.Headers, text: str, dialect: Dialect) -> str | None:
    """The advice when an error answer shows a wrong SERVICE_DIALECT or SERVICE_BASE_URL."""
    if status in (404, 406, 415):
        # Each dialect's server names its media type in a header of its own.
        for other in DIALECTS.values():
            if other.name != dialect.name and other.media_type_header in headers:
                return f"The server speaks the {other.name} dialect: set SERVICE_DIALECT={other.name}"
    if status in (406, 415) and "accept" in text:
        return f"The server refused the media type {dialect.media_type}: check SERVICE_DIALECT"
    # A server with rate limiting switched off answers 404 "Rate limiting is not enabled." here.
    if status == 404 and path.endswith("/rate_limit") and "rate limit" not in text:
        return (
            "/rate_limit answered 404: SERVICE_BASE_URL does not point at the API root "
            "(for a self-hosted server it usually ends in /api/v3)"
        )
    return None


# Who may read billing (usage, cost centers, budgets): the paths of both dialects say `/billing`
# (`/settings/billing/…`, `/billing/…`, `/copilot/billing`); the seat listings are not billing data.
def _permission_hint(*, path: str, message: str) -> str:
    text = message.lower()
    if "/billing" in path and "/billing/seats" not in path:
        roles = BILLING_ROLES["enterprise" if path.startswith("/enterprises/") else "organization"]
        return f"Billing data needs an {roles}: give the token one of those roles, or leave billing out."
    if "/metrics/" in path:
        scope = "enterprise" if path.startswith("/enterprises/") else "organization"
        if "policy" in text:
            return f"The usage metrics policy is disabled for this {scope}: an {scope} owner must enable it."
        if scope == "enterprise":
            return (
                "The token needs an enterprise owner or billing manager role, "
                "or a custom enterprise role with the metrics permission."
            )
        return "The token needs the organization owner role, or a custom organization role with the metrics permission."
    return "The token lacks a permission this endpoint needs (check its scopes or the app's permissions)."


def _error_body(response: httpx.Response) -> tuple[str, str | None, tuple[ErrorDetail, ...]]:
    """(message, documentation_url, errors[]) of a 4xx/5xx body; the reason phrase if it has none."""
    try:
        body = response.json()
    except ValueError:
        return response.reason_phrase, None, ()
    if not isinstance(body, Mapping):
        return response.reason_phrase, None, ()
    message = body.get("message")
    docs = body.get("documentation_url")
    entries = body.get("errors")
    details = tuple(_detail(e) for e in entries) if isinstance(entries, list) else ()
    return (
        message if isinstance(message, str) and message else response.reason_phrase,
        docs if isinstance(docs, str) and docs else None,
        details,
    )


def _detail(entry: object) -> ErrorDetail:
    if not isinstance(entry, Mapping):
        return ErrorDetail(message=str(entry))

    def text(key: str) -> str | None:
        value = entry.get(key)
        return value if isinstance(value, str) and value else None

    return ErrorDetail(resource=text("resource"), field=text("field"), code=text("code"), message=text("message"))


def failed_request(exc: httpx.TransportError, *, default: httpx.Request) -> httpx.Request:
    """The request that got no answer: the one sent, or one its auth flow sent first (the token exchange)."""
    try:
        return exc.request
    except RuntimeError:  # httpx's way of saying the error carries no request
        return default


def no_answer(*, method: str, url: str, exc: httpx.TransportError, unanswered_setting: str | None) -> TransportFailed:
    """The error for a request that got no answer.

    ``unanswered_setting`` names the variable of a configured host that has never answered:
    a refused or unresolvable connection to it is a wrong address, not an outage to wait out.
    """
    if isinstance(exc, httpx.ConnectError) and unanswered_setting is not None:
        return Unreachable(method=method, url=url, reason=_connect_problem(url, exc), setting=unanswered_setting)
    return TransportFailed(
        method=method,
        url=url,
        reason=type(exc).__name__,
        may_have_arrived=not isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)),
    )


def link_failure(*, url: str, status: int) -> ServiceError:
    """The error for a signed link's 4xx/5xx (the URL loses its signed query)."""
    if status in (403, 404, 410):
        return LinkExpired(url=url, status=status)
    safe = redact_url(url, keep_query=False)
    if status >= 500:
        return ServerError(method="GET", url=safe, status=status, message="download failed")
    return RequestFailed(method="GET", url=safe, status=status, message="download failed")
