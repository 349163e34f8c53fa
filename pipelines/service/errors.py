"""One exception tree for everything the platform client can raise.

    ServiceError                      root: catch this to handle any failure of the service layer
    ├── ConfigError                   the settings cannot make a working client
    ├── RequestFailed(method, url, status, message, documentation_url, details)
    │   ├── AuthenticationFailed      401: the credentials are wrong or expired
    │   ├── PermissionDenied(hint)    403 that is not a rate limit: role, permission or policy
    │   ├── NotFound                  404: unknown organization, enterprise, repository, …
    │   ├── Misdirected               the answer shows SERVICE_BASE_URL or SERVICE_DIALECT is wrong
    │   ├── VersionRejected           the API version header was refused
    │   ├── MalformedResponse         a success status whose body is not the JSON it should be
    │   ├── RateLimited(reset_at)     primary limit spent; retried when the wait is within the cap
    │   ├── SecondaryRateLimited(retry_after)
    │   └── ServerError               5xx after the bounded retries
    ├── TransportFailed(method, url)  no answer: connection refused, dropped, timed out
    │   └── Unreachable(setting)      no answer from a host that never answered: a wrong address
    ├── LinkExpired(url, status)      a signed download link answered 403/404/410
    ├── TruncatedDownload(url, expected, received)
    └── GraphQLError(messages)        a GraphQL answer carried an ``errors`` array
        └── GraphQLNotFound(data, not_found)  every error was NOT_FOUND at a path; the rest resolved

Every URL held or shown by these errors has passed through :func:`redact_url`, so no signed
query string, token or authorization code ever reaches a message, a repr or a log line; and
every text they hold (message, details, advice, GraphQL messages) and their ``args`` have
passed through the secrets redactor (``register_secrets``), so a body that echoes a credential
is shown, logged and stored by Dagster without it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from datetime import UTC, datetime
from typing import Any

from pipelines.service._redaction import redact_secrets, redact_url

__all__ = [
    "AuthenticationFailed",
    "ConfigError",
    "ErrorDetail",
    "GraphQLError",
    "GraphQLNotFound",
    "LinkExpired",
    "MalformedResponse",
    "Misdirected",
    "NotFound",
    "PermissionDenied",
    "RateLimited",
    "RequestFailed",
    "SecondaryRateLimited",
    "ServerError",
    "ServiceError",
    "TransportFailed",
    "TruncatedDownload",
    "Unreachable",
    "VersionRejected",
    "redact_url",
]


class ServiceError(Exception):
    """Root of every error raised by ``pipelines.service``; no registered secret is in its ``args``.

    ``args`` is what ``str``, tracebacks, pickling and Dagster's run storage read.
    """

    def __init__(self, *args: object) -> None:
        super().__init__(*(redact_secrets(a) if isinstance(a, str) else a for a in args))


class ConfigError(ServiceError):
    """The settings are incomplete or inconsistent (names the variable, never its value)."""


@dataclass(frozen=True)
class ErrorDetail:
    """One entry of a 4xx body's ``errors[]``: which field of which resource failed, and how."""

    resource: str | None = None
    field: str | None = None
    code: str | None = None
    message: str | None = None

    def __str__(self) -> str:
        where = ".".join(part for part in (self.resource, self.field) if part)
        what = self.message or self.code or "invalid"
        return f"{where} {what}" if where else what

    def redacted(self) -> ErrorDetail:
        """The detail with every registered secret replaced (the server wrote every field)."""
        return replace(self, **{f.name: _redacted(getattr(self, f.name)) for f in fields(self)})


def _redacted(text: str | None) -> str | None:
    return redact_secrets(text) if text is not None else None


class RequestFailed(ServiceError):
    """The service answered with an error status."""

    def __init__(
        self,
        *,
        method: str,
        url: object,
        status: int,
        message: str,
        advice: str = "",
        documentation_url: str | None = None,
        details: Sequence[ErrorDetail] = (),
    ) -> None:
        self.method = method
        self.url = redact_secrets(redact_url(url))
        self.status = status
        # The server wrote these: any of them may repeat the request's credentials.
        self.message = redact_secrets(message)
        self.advice = redact_secrets(advice)
        self.documentation_url = _redacted(documentation_url)
        self.details = tuple(d.redacted() for d in details)
        super().__init__(self._text())

    def advise(self, advice: str) -> None:
        """Replace the advice (the retry policy knows some causes only when it gives up)."""
        self.advice = redact_secrets(advice)
        self.args = (self._text(),)

    def _text(self) -> str:
        text = f"{self.method} {self.url} failed with {self.status}: {self.message or '(no message)'}"
        if self.details:
            text += " (" + "; ".join(str(d) for d in self.details) + ")"
        if self.advice:
            text += f". {self.advice}"
        if self.documentation_url:
            text += f" [docs: {self.documentation_url}]"
        return text

    def __repr__(self) -> str:
        return f"{type(self).__name__}(method={self.method!r}, url={self.url!r}, status={self.status})"


class MalformedResponse(RequestFailed):
    """The service answered with a success status but a body that is not JSON."""


class AuthenticationFailed(RequestFailed):
    """401: the token (or the app's JWT) was refused."""


class PermissionDenied(RequestFailed):
    """403 that is a permission or policy problem; never retried."""

    def __init__(self, *, hint: str, **common: object) -> None:
        self.hint = hint
        super().__init__(advice=hint, **common)  # type: ignore[arg-type]


class NotFound(RequestFailed):
    """404: carries the server's message."""


class Misdirected(RequestFailed):
    """The answer shows a configuration mistake (base URL, dialect): never retried."""


class VersionRejected(RequestFailed):
    """The ``X-…-Api-Version`` value was not accepted."""


class ServerError(RequestFailed):
    """5xx that persisted through the bounded retries."""


class RateLimited(RequestFailed):
    """The primary rate limit is spent until ``reset_at`` (seconds since the epoch; None: not said)."""

    def __init__(self, *, reset_at: float | None, message: str, **common: object) -> None:
        self.reset_at = reset_at
        if reset_at is None:
            when = "no reset time given"
        else:
            when = "rate limit resets at " + datetime.fromtimestamp(reset_at, tz=UTC).isoformat(timespec="seconds")
        super().__init__(message=f"{message} ({when})".lstrip(), **common)  # type: ignore[arg-type]


class SecondaryRateLimited(RequestFailed):
    """A secondary limit; ``retry_after`` seconds, or None when the server gave no usable value."""

    def __init__(self, *, retry_after: float | None, **common: object) -> None:
        self.retry_after = retry_after
        super().__init__(**common)  # type: ignore[arg-type]


class TransportFailed(ServiceError):
    """No HTTP answer: the connection failed, dropped or timed out."""

    def __init__(self, *, method: str, url: object, reason: str, may_have_arrived: bool = False) -> None:
        self.method = method
        self.url = redact_secrets(redact_url(url))
        self.reason = redact_secrets(reason)
        # True when the request may have reached the server (a write must not be repeated).
        self.may_have_arrived = may_have_arrived
        super().__init__(f"{method} {self.url} got no answer: {self.reason}")

    def __repr__(self) -> str:
        return f"{type(self).__name__}(method={self.method!r}, url={self.url!r})"


class Unreachable(TransportFailed):
    """A configured host refused the connection or did not resolve before it ever answered.

    Such a failure is a wrong address, not a passing outage, so it is never retried; ``setting``
    names the variable to fix.
    """

    def __init__(self, *, method: str, url: object, reason: str, setting: str) -> None:
        self.setting = setting
        super().__init__(method=method, url=url, reason=f"{reason}: check {setting}")


class LinkExpired(ServiceError):
    """A signed download link is no longer valid; fetch the report metadata again."""

    def __init__(self, *, url: object, status: int) -> None:
        self.url = redact_url(url, keep_query=False)
        self.status = status
        super().__init__(f"GET {self.url} answered {status}: the signed link expired or was refused")

    def __repr__(self) -> str:
        return f"LinkExpired(method='GET', url={self.url!r}, status={self.status})"


class TruncatedDownload(ServiceError):
    """A download ended before its ``Content-Length``; restart the file."""

    def __init__(self, *, url: object, expected: int | None, received: int) -> None:
        self.url = redact_url(url, keep_query=False)
        self.expected = expected
        self.received = received
        super().__init__(f"GET {self.url} ended after {received} of {expected if expected is not None else '?'} bytes")

    def __repr__(self) -> str:
        return f"TruncatedDownload(method='GET', url={self.url!r}, received={self.received})"


class GraphQLError(ServiceError):
    """The GraphQL answer carried an ``errors`` array (even with HTTP 200)."""

    def __init__(self, *, url: object, messages: tuple[str, ...]) -> None:
        self.url = redact_secrets(redact_url(url))
        self.messages = tuple(redact_secrets(m) for m in messages)
        super().__init__(f"POST {self.url} GraphQL errors: " + "; ".join(self.messages))

    def __repr__(self) -> str:
        return f"GraphQLError(method='POST', url={self.url!r}, messages={self.messages!r})"


class GraphQLNotFound(GraphQLError):
    """Every error was ``NOT_FOUND`` at a path, so the rest of ``data`` is usable.

    The public service answers a missing node of an aliased query this way (``data.<alias>``
    null); a caller that can do without those nodes catches this and reads ``data``.
    ``not_found`` maps each error's path to the service's message.
    """

    def __init__(
        self,
        *,
        url: object,
        messages: tuple[str, ...],
        data: Mapping[str, Any],
        not_found: Mapping[tuple[str | int, ...], str],
    ) -> None:
        self.data = data
        self.not_found = {path: redact_secrets(message) for path, message in not_found.items()}
        super().__init__(url=url, messages=messages)
