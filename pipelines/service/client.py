"""The HTTP client of the platform: headers, auth, retries, rate limits, pages, conditional GETs.

Which failures are retried and after how long is decided by ``RetryPolicy`` (``_retry.py``).
Permission problems, 401, 404 and configuration mistakes (a host that never answered, a server
of the other dialect, a base URL that is not the API root) are never retried.
Clock and sleep are injectable, so tests drive every wait on a fake clock.
"""

from __future__ import annotations

import json as jsonlib
import logging
import re
import socket
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import urlsplit

import httpx

from pipelines.service import graphql as _graphql
from pipelines.service._cache import CachedEntry, ConditionalCache
from pipelines.service._retry import RetryPolicy
from pipelines.service.auth import AppAuth, Credentials, TokenAuth
from pipelines.service.dialect import DIALECTS, Dialect, get_dialect
from pipelines.service.errors import (
    AuthenticationFailed,
    ConfigError,
    ErrorDetail,
    LinkExpired,
    MalformedResponse,
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

if TYPE_CHECKING:
    from pipelines.config import Settings

_log = logging.getLogger(__name__)

_USER_AGENT = "metrics-etl/0.1"


__all__ = ["Budget", "ClientStats", "RetryPolicy", "ServiceClient"]


@dataclass(frozen=True)
class Budget:
    """One resource's rate-limit budget as of the last answer that reported it."""

    limit: int | None
    remaining: int | None
    reset: float | None
    used: int | None
    resource: str | None


@dataclass(frozen=True)
class ClientStats:
    """API requests sent (signed-link downloads are not counted: they spend no budget)."""

    requests: int = 0
    not_modified: int = 0
    retries: Mapping[str, int] = field(default_factory=dict)
    waited_seconds: float = 0.0
    token_exchanges: int = 0


@dataclass(frozen=True)
class _Answer:
    method: str
    status: int
    headers: httpx.Headers
    body: bytes
    url: str

    def json(self) -> Any:
        if not self.body:
            return None
        try:
            return jsonlib.loads(self.body)
        except ValueError:
            kind = self.headers.get("content-type") or "no content type"
            raise MalformedResponse(
                method=self.method, url=self.url, status=self.status,
                message=f"the answer is not JSON ({kind}, {len(self.body):,} bytes)",
                advice="Check SERVICE_BASE_URL: a proxy or login page may be answering instead of the API.",
            ) from None


_T = TypeVar("_T")
_LINK_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')


class ServiceClient:
    """One session with the platform; use as a context manager.

    ``settings`` gives the address, credentials, dialect, version and cache path.
    ``transport`` is for unit tests of one function (``httpx.MockTransport``).
    """

    def __init__(
        self,
        *,
        settings: Settings,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
        retry: RetryPolicy = RetryPolicy(),
        transport: httpx.BaseTransport | None = None,
        timeout: float = 30.0,
        credentials: Credentials | None = None,
    ) -> None:
        _install_log_redaction()
        self._settings = settings
        self._base_url = settings.require_base_url()
        self._graphql_url = settings.graphql_url or f"{self._base_url}/graphql"
        for name, address in (("SERVICE_BASE_URL", self._base_url), ("SERVICE_GRAPHQL_URL", self._graphql_url)):
            if not address.lower().startswith(("http://", "https://")):
                raise ConfigError(f"{name} must start with http:// or https://")
        self.dialect: Dialect = get_dialect(settings.dialect)
        self._clock = clock
        self._sleep = sleep
        self._retry = retry
        self._max_wait = settings.rate_limit_max_wait
        self._credentials = credentials if credentials is not None else _credentials_from(settings, clock)
        self._trusted = {_origin(self._base_url), _origin(self._graphql_url)}
        # Which setting names each configured host, to say what to fix when it cannot be reached.
        self._setting_of = {_origin(self._graphql_url): "SERVICE_GRAPHQL_URL", _origin(self._base_url): "SERVICE_BASE_URL"}
        self._answered: set[str] = set()
        self._http = httpx.Client(transport=transport, timeout=timeout, follow_redirects=True)
        self._cache = ConditionalCache(path=settings.etag_cache) if settings.etag_cache else None
        self._lock = threading.Lock()
        self._requests = 0
        self._not_modified = 0
        self._retries: Counter[str] = Counter()
        self._waited = 0.0
        self._budgets: dict[str, Budget] = {}

    def __enter__(self) -> ServiceClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()
        if self._cache is not None:
            self._cache.close()

    def __repr__(self) -> str:
        return f"ServiceClient(base_url={self._base_url!r}, dialect={self.dialect.name!r})"

    # --- public calls ---------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        return self._base_url

    @property
    def budgets(self) -> dict[str, Budget]:
        """Budget per resource (``core``, ``graphql``, …) as last reported; empty until one is."""
        with self._lock:
            return dict(self._budgets)

    @property
    def stats(self) -> ClientStats:
        exchanges = self._credentials.exchanges if isinstance(self._credentials, AppAuth) else 0
        with self._lock:
            return ClientStats(
                requests=self._requests,
                not_modified=self._not_modified,
                retries=dict(self._retries),
                waited_seconds=self._waited,
                token_exchanges=exchanges,
            )

    def get_json(self, *, path: str, params: Mapping[str, Any] | None = None, conditional: bool = True) -> Any:
        """GET a path (or absolute URL) and decode JSON; None for 204. Conditional by default."""
        return self._request(method="GET", url=self._url(path), params=params, conditional=conditional).json()

    def post_json(self, *, path: str, json: Any = None) -> Any:
        return self._request(method="POST", url=self._url(path), json=json).json()

    def paginate(self, *, path: str, params: Mapping[str, Any] | None = None) -> Iterator[Any]:
        """Items of every page, lazily: follows ``Link: rel="next"``, else stops at an empty page."""
        base = self._url(path)
        page = 1
        query: dict[str, Any] | None = {"per_page": 100, **(params or {}), "page": page}
        url = base
        while True:
            answer = self._request(method="GET", url=url, params=query, conditional=True)
            items = answer.json()
            if not isinstance(items, list):
                raise ServiceError(f"GET {redact_url(answer.url)} did not answer a JSON array")
            if not items:
                return
            yield from items
            link = answer.headers.get("link")
            following = _next_link(link)
            if following is not None:
                url, query = following, None
            elif link:
                return
            else:
                page += 1
                url, query = base, {"per_page": 100, **(params or {}), "page": page}

    def rate_limit(self) -> Any:
        """``GET /rate_limit`` (never conditional): refreshes the budget of every resource it lists."""
        body = self.get_json(path="/rate_limit", conditional=False)
        if isinstance(body, Mapping):
            resources = body.get("resources")
            listed = resources if isinstance(resources, Mapping) else {"core": body.get("rate")}
            with self._lock:
                for name, values in listed.items():
                    if isinstance(values, Mapping):
                        self._budgets[name] = _budget_of(values, resource=name)
        return body

    def graphql(self, *, query: str, variables: Mapping[str, Any] | None = None) -> Any:
        """POST a GraphQL document; returns ``data``; an ``errors`` array raises GraphQLError."""
        answer = self._request(
            method="POST", url=self._graphql_url, json={"query": query, "variables": dict(variables or {})}
        )
        return _graphql.data_of(body=answer.json(), url=self._graphql_url)

    @contextmanager
    def open_link(self, *, url: str) -> Iterator[httpx.Response]:
        """Stream an absolute signed link: no Authorization, identity encoding, no budget.

        403/404/410 raise LinkExpired; 5xx and failed connections are retried before any
        byte is handed out. The caller reads the body (``iter_bytes``).
        """
        response = self._with_retries(method="GET", url=url, repeatable=True, call=lambda: self._open_link_once(url))
        try:
            yield response
        finally:
            response.close()

    # --- internals ------------------------------------------------------------------------

    def _url(self, path: str) -> str:
        return path if path.startswith(("http://", "https://")) else f"{self._base_url}{path}"

    def _headers(self, *, url: str, conditional_entry: CachedEntry | None, authorization: str | None) -> dict[str, str]:
        headers = {
            "Accept": self.dialect.media_type,
            self.dialect.version_header: self._settings.api_version,
            "User-Agent": _USER_AGENT,
        }
        # Credentials only go to the configured service, never to a link on another host.
        if authorization is not None:
            headers["Authorization"] = authorization
        elif self._credentials is not None and _origin(url) in self._trusted:
            headers["Authorization"] = self._credentials.authorization(exchange=self._exchange)
        if conditional_entry is not None:
            if conditional_entry.etag:
                headers["If-None-Match"] = conditional_entry.etag
            if conditional_entry.last_modified:
                headers["If-Modified-Since"] = conditional_entry.last_modified
        return headers

    def _request(
        self,
        *,
        method: str,
        url: str,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        conditional: bool = False,
        authorization: str | None = None,
    ) -> _Answer:
        # Reads are safe to repeat (GraphQL queries, the token exchange); a create is not.
        repeatable = method == "GET" or url == self._graphql_url or urlsplit(url).path.endswith("/access_tokens")

        def call() -> _Answer:
            return self._attempt(
                method=method, url=url, params=params, json=json, conditional=conditional, authorization=authorization
            )

        try:
            return self._with_retries(method=method, url=url, repeatable=repeatable, call=call)
        except AuthenticationFailed:
            # An installation token can be revoked before its expiry: exchange anew, once.
            if authorization is None and isinstance(self._credentials, AppAuth) and self._credentials.invalidate():
                return self._with_retries(method=method, url=url, repeatable=repeatable, call=call)
            raise

    def _with_retries(self, *, method: str, url: str, repeatable: bool, call: Callable[[], _T]) -> _T:
        attempt = 0
        while True:  # bounded: the policy gives up at its max_attempts
            attempt += 1
            try:
                return call()
            except ServiceError as exc:
                decision = self._retry.decide(
                    exc, attempt=attempt, now=self._clock(), max_wait=self._max_wait, repeatable=repeatable
                )
                if decision.wait is None:
                    if decision.advice and isinstance(exc, RequestFailed):
                        exc.advise(decision.advice)
                    raise
                with self._lock:
                    self._retries[decision.kind] += 1
                    self._waited += decision.wait
                _log.warning(
                    "retrying %s %s after %s in %.1fs",
                    method, redact_url(url, keep_query=False), decision.kind, decision.wait,
                )
                self._sleep(decision.wait)

    def _attempt(
        self,
        *,
        method: str,
        url: str,
        params: Mapping[str, Any] | None,
        json: Any,
        conditional: bool,
        authorization: str | None,
    ) -> _Answer:
        request_url = str(httpx.URL(url, params=params)) if params else url
        cache_key = None
        entry = None
        if conditional and method == "GET" and self._cache is not None:
            identity = self._credentials.identity if self._credentials is not None else "anonymous"
            cache_key = ConditionalCache.key(identity=identity, url=request_url)
            entry = self._cache.get(key=cache_key)
        headers = self._headers(url=request_url, conditional_entry=entry, authorization=authorization)
        if json is not None:
            headers["Content-Type"] = "application/json"
        content = jsonlib.dumps(json).encode() if json is not None else None
        with self._lock:
            self._requests += 1
        try:
            response = self._http.request(method, request_url, headers=headers, content=content)
        except httpx.TransportError as exc:
            raise self._no_answer(method=method, url=request_url, exc=exc) from None
        self._answered.add(_origin(request_url))
        self._note_budget(response.headers)
        if response.status_code == 304 and entry is not None:
            with self._lock:
                self._not_modified += 1
            return _Answer(method=method, status=200, headers=response.headers, body=entry.body, url=request_url)
        if response.status_code >= 400:
            raise self._failure(method=method, url=request_url, response=response)
        etag = response.headers.get("etag")
        modified = response.headers.get("last-modified")
        if cache_key is not None and response.status_code == 200 and (etag or modified):
            self._cache.put(key=cache_key, entry=CachedEntry(etag=etag, last_modified=modified, body=response.content))
        return _Answer(
            method=method, status=response.status_code, headers=response.headers, body=response.content, url=request_url
        )

    def _open_link_once(self, url: str) -> httpx.Response:
        # No Authorization: the link's signature is the credential, and it may be another host.
        request = self._http.build_request(
            "GET", url, headers={"Accept-Encoding": "identity", "User-Agent": _USER_AGENT}
        )
        try:
            response = self._http.send(request, stream=True)
        except httpx.TransportError as exc:
            raise TransportFailed(method="GET", url=redact_url(url, keep_query=False), reason=type(exc).__name__) from None
        if response.status_code < 400:
            return response
        response.close()
        if response.status_code in (403, 404, 410):
            raise LinkExpired(url=url, status=response.status_code)
        safe = redact_url(url, keep_query=False)
        if response.status_code >= 500:
            raise ServerError(method="GET", url=safe, status=response.status_code, message="download failed")
        raise RequestFailed(method="GET", url=safe, status=response.status_code, message="download failed")

    def _exchange(self, app_jwt: str) -> Mapping[str, Any]:
        assert isinstance(self._credentials, AppAuth)
        path = f"/app/installations/{self._credentials.installation_id}/access_tokens"
        try:
            answer = self._request(method="POST", url=self._url(path), authorization=f"Bearer {app_jwt}")
        except AuthenticationFailed as exc:
            raise AuthenticationFailed(
                method=exc.method,
                url=exc.url,
                status=exc.status,
                message=exc.message,
                advice="Check SERVICE_APP_ID, the app private key and SERVICE_INSTALLATION_ID.",
            ) from None
        body = answer.json()
        if not isinstance(body, Mapping):
            raise ServiceError(f"POST {redact_url(answer.url)} did not answer a JSON object")
        return body

    def _no_answer(self, *, method: str, url: str, exc: httpx.TransportError) -> TransportFailed:
        origin = _origin(url)
        setting = self._setting_of.get(origin)
        # Before a configured host has ever answered, a refused or unresolvable connection is a
        # wrong address; afterwards it is an outage worth waiting out.
        if isinstance(exc, httpx.ConnectError) and setting is not None and origin not in self._answered:
            return Unreachable(method=method, url=url, reason=_connect_problem(url, exc), setting=setting)
        return TransportFailed(
            method=method,
            url=url,
            reason=type(exc).__name__,
            may_have_arrived=not isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)),
        )

    def _note_budget(self, headers: httpx.Headers) -> None:
        if "x-ratelimit-remaining" not in headers:
            return
        # The public service names the resource; an answer that does not is counted as core.
        resource = headers.get("x-ratelimit-resource") or "core"
        values = {name: headers.get(f"x-ratelimit-{name}") for name in ("limit", "remaining", "reset", "used")}
        with self._lock:
            self._budgets[resource] = _budget_of(values, resource=resource)

    def _failure(self, *, method: str, url: str, response: httpx.Response) -> ServiceError:
        status = response.status_code
        message, documentation_url, details = _error_body(response)
        common: dict[str, Any] = {
            "method": method, "url": url, "status": status, "message": message,
            "documentation_url": documentation_url, "details": details,
        }
        headers = response.headers
        text = message.lower()
        if status in (403, 429) and headers.get("x-ratelimit-remaining") == "0":
            return RateLimited(**common, reset_at=_float(headers.get("x-ratelimit-reset")))
        # 429 is always a limit; a 403 is one when it says so ("abuse detection" is the older wording).
        if status == 429 or (
            status == 403 and ("retry-after" in headers or "secondary rate limit" in text or "abuse detection" in text)
        ):
            return SecondaryRateLimited(**common, retry_after=_float(headers.get("retry-after")))
        if status == 401:
            return AuthenticationFailed(**common, advice="Check SERVICE_TOKEN (or run `metrics-etl login`).")
        if advice := self._misdirection(status=status, path=urlsplit(url).path, headers=headers, text=text):
            return Misdirected(**common, advice=advice)
        if "version" in text and status in (400, 406, 410, 415, 422):
            return VersionRejected(**common, advice="Check SERVICE_API_VERSION.")
        if status == 403:
            return PermissionDenied(**common, hint=_permission_hint(path=urlsplit(url).path, message=message))
        if status == 404:
            return NotFound(**common)
        if status >= 500:
            return ServerError(**common)
        return RequestFailed(**common)

    def _misdirection(self, *, status: int, path: str, headers: httpx.Headers, text: str) -> str | None:
        """The advice when an error answer shows a wrong SERVICE_DIALECT or SERVICE_BASE_URL."""
        if status in (404, 406, 415):
            # Each dialect's server names its media type in a header of its own.
            for other in DIALECTS.values():
                if other.name != self.dialect.name and other.media_type_header in headers:
                    return f"The server speaks the {other.name} dialect: set SERVICE_DIALECT={other.name}"
        if status in (406, 415) and "accept" in text:
            return f"The server refused the media type {self.dialect.media_type}: check SERVICE_DIALECT"
        # A server with rate limiting switched off answers 404 "Rate limiting is not enabled." here.
        if status == 404 and path.endswith("/rate_limit") and "rate limit" not in text:
            return (
                "/rate_limit answered 404: SERVICE_BASE_URL does not point at the API root "
                "(for a self-hosted server it usually ends in /api/v3)"
            )
        return None


def _credentials_from(settings: Settings, clock: Callable[[], float]) -> Credentials | None:
    if settings.uses_app:
        assert settings.app_id and settings.app_private_key and settings.installation_id
        return AppAuth(
            app_id=settings.app_id,
            private_key=settings.app_private_key,
            installation_id=settings.installation_id,
            clock=clock,
        )
    if settings.token is not None:
        return TokenAuth(token=settings.token)
    return None


def _permission_hint(*, path: str, message: str) -> str:
    text = message.lower()
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


def _budget_of(values: Mapping[str, Any], *, resource: str) -> Budget:
    return Budget(
        limit=_int(values.get("limit")),
        remaining=_int(values.get("remaining")),
        reset=_float(values.get("reset")),
        used=_int(values.get("used")),
        resource=resource,
    )


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


def _next_link(header: str | None) -> str | None:
    if not header:
        return None
    match = _LINK_NEXT.search(header)
    return match.group(1) if match else None


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def _int(value: object) -> int | None:
    try:
        return int(value) if isinstance(value, (str, int)) else None
    except ValueError:
        return None


def _float(value: object) -> float | None:
    try:
        return float(value) if isinstance(value, (str, int, float)) else None
    except ValueError:
        return None


class _RedactingFilter(logging.Filter):
    """Strips signed queries, codes and tokens from the URLs httpx/httpcore log."""

    _URL = re.compile(r"https?://[^\s\"'<>]+")

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage()
        cleaned = self._URL.sub(lambda m: redact_url(m.group(0)), text)
        if cleaned != text:
            record.msg, record.args = cleaned, None
        return True


_REDACTION = _RedactingFilter()
_REDACTED_LOGGERS = (
    "httpx",
    "httpcore",
    "httpcore.connection",
    "httpcore.http11",
    "httpcore.http2",
    "httpcore.proxy",
)


def _install_log_redaction() -> None:
    # Filters do not inherit: each logger that emits records needs its own.
    for name in _REDACTED_LOGGERS:
        logger = logging.getLogger(name)
        if _REDACTION not in logger.filters:
            logger.addFilter(_REDACTION)
