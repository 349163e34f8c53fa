"""The HTTP client of the platform: headers, auth, retries, rate limits, pages, conditional GETs.

Retries (tenacity): 5xx and transport failures back off exponentially with jitter; a spent
primary rate limit waits until its reset plus a buffer unless that is beyond the configured
cap (then it fails at once, naming the reset time); a secondary limit honours ``retry-after``
(a value <= 0 falls back to backoff). Permission problems, 401 and 404 are never retried.
Clock and sleep are injectable, so tests drive every wait on a fake clock.
"""

from __future__ import annotations

import json as jsonlib
import logging
import re
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx
import tenacity

from pipelines.service import graphql as _graphql
from pipelines.service._cache import CachedEntry, ConditionalCache
from pipelines.service.auth import AppAuth, Credentials, TokenAuth
from pipelines.service.dialect import Dialect, get_dialect
from pipelines.service.errors import (
    AuthenticationFailed,
    LinkExpired,
    MalformedResponse,
    NotFound,
    PermissionDenied,
    RateLimited,
    RequestFailed,
    SecondaryRateLimited,
    ServerError,
    ServiceError,
    TransportFailed,
    VersionRejected,
    redact_url,
)

if TYPE_CHECKING:
    from pipelines.config import Settings

_log = logging.getLogger(__name__)

_USER_AGENT = "metrics-etl/0.1"


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 5
    backoff_initial: float = 0.5
    backoff_max: float = 30.0
    rate_limit_buffer: float = 2.0


@dataclass(frozen=True)
class Budget:
    """The rate-limit budget as of the last response that carried the headers."""

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


_RETRY_KIND = {
    ServerError: "server_error",
    TransportFailed: "transport",
    RateLimited: "rate_limit",
    SecondaryRateLimited: "secondary_rate_limit",
}

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
        self.dialect: Dialect = get_dialect(settings.dialect)
        self._clock = clock
        self._sleep = sleep
        self._retry = retry
        self._max_wait = settings.rate_limit_max_wait
        self._credentials = credentials if credentials is not None else _credentials_from(settings, clock)
        self._trusted = {_origin(self._base_url), _origin(self._graphql_url)}
        self._http = httpx.Client(transport=transport, timeout=timeout, follow_redirects=True)
        self._cache = ConditionalCache(path=settings.etag_cache) if settings.etag_cache else None
        self._lock = threading.Lock()
        self._requests = 0
        self._not_modified = 0
        self._retries: Counter[str] = Counter()
        self._waited = 0.0
        self._budget: Budget | None = None

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
    def budget(self) -> Budget | None:
        return self._budget

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
        """``GET /rate_limit`` (never conditional, so it always refreshes the budget)."""
        return self.get_json(path="/rate_limit", conditional=False)

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
        response = self._retrying(method="GET", url=url)(self._open_link_once, url)
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
        call = {
            "method": method,
            "url": url,
            "params": params,
            "json": json,
            "conditional": conditional,
            "authorization": authorization,
        }
        try:
            return self._retrying(method=method, url=url)(self._attempt, **call)
        except AuthenticationFailed:
            # An installation token can be revoked before its expiry: exchange anew, once.
            if authorization is None and isinstance(self._credentials, AppAuth) and self._credentials.invalidate():
                return self._retrying(method=method, url=url)(self._attempt, **call)
            raise

    def _retrying(self, *, method: str, url: str) -> tenacity.Retrying:
        backoff = tenacity.wait_exponential_jitter(
            multiplier=self._retry.backoff_initial, max=self._retry.backoff_max, jitter=self._retry.backoff_initial
        )

        def wait(state: tenacity.RetryCallState) -> float:
            exc = state.outcome.exception() if state.outcome else None
            if isinstance(exc, RateLimited):
                return max(0.0, exc.reset_at - self._clock()) + self._retry.rate_limit_buffer
            if isinstance(exc, SecondaryRateLimited) and exc.retry_after is not None and exc.retry_after > 0:
                return exc.retry_after
            return backoff(state)

        def before_sleep(state: tenacity.RetryCallState) -> None:
            exc = state.outcome.exception() if state.outcome else None
            kind = next((k for t, k in _RETRY_KIND.items() if isinstance(exc, t)), "other")
            seconds = state.upcoming_sleep
            with self._lock:
                self._retries[kind] += 1
                self._waited += seconds
            _log.warning("retrying %s %s after %s in %.1fs", method, redact_url(url, keep_query=False), kind, seconds)

        return tenacity.Retrying(
            stop=tenacity.stop_after_attempt(self._retry.max_attempts),
            wait=wait,
            retry=tenacity.retry_if_exception(self._retryable),
            sleep=self._sleep,
            before_sleep=before_sleep,
            reraise=True,
        )

    def _retryable(self, exc: BaseException) -> bool:
        if isinstance(exc, RateLimited):
            return exc.reset_at - self._clock() + self._retry.rate_limit_buffer <= self._max_wait
        if isinstance(exc, SecondaryRateLimited) and exc.retry_after is not None:
            return exc.retry_after <= self._max_wait
        if isinstance(exc, TransportFailed) and exc.may_have_arrived and exc.method == "POST":
            # Reads are safe to repeat (GraphQL queries, the token exchange); a create is not.
            path = urlsplit(exc.url).path
            return exc.url == redact_url(self._graphql_url) or path.endswith("/access_tokens")
        return isinstance(exc, (ServerError, TransportFailed, SecondaryRateLimited))

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
            raise TransportFailed(
                method=method,
                url=request_url,
                reason=type(exc).__name__,
                may_have_arrived=not isinstance(exc, (httpx.ConnectError, httpx.ConnectTimeout)),
            ) from None
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

    def _note_budget(self, headers: httpx.Headers) -> None:
        if "x-ratelimit-remaining" not in headers:
            return
        self._budget = Budget(
            limit=_int(headers.get("x-ratelimit-limit")),
            remaining=_int(headers.get("x-ratelimit-remaining")),
            reset=_float(headers.get("x-ratelimit-reset")),
            used=_int(headers.get("x-ratelimit-used")),
            resource=headers.get("x-ratelimit-resource"),
        )

    def _failure(self, *, method: str, url: str, response: httpx.Response) -> ServiceError:
        status = response.status_code
        message = _message(response)
        common = {"method": method, "url": url, "status": status, "message": message}
        headers = response.headers
        if status in (403, 429) and headers.get("x-ratelimit-remaining") == "0" and "x-ratelimit-reset" in headers:
            reset_at = _float(headers["x-ratelimit-reset"]) or self._clock()
            wait = reset_at - self._clock() + self._retry.rate_limit_buffer
            advice = ""
            if wait > self._max_wait:
                advice = (
                    f"Waiting {wait:.0f}s would exceed SERVICE_RATE_LIMIT_MAX_WAIT ({self._max_wait:.0f}s); "
                    "run again after the reset."
                )
            return RateLimited(**common, reset_at=reset_at, advice=advice)
        if status == 429 or (status == 403 and ("retry-after" in headers or "secondary rate limit" in message.lower())):
            return SecondaryRateLimited(**common, retry_after=_float(headers.get("retry-after")))
        if status == 401:
            return AuthenticationFailed(**common, advice="Check SERVICE_TOKEN (or run `metrics-etl login`).")
        if "version" in message.lower() and status in (400, 406, 410, 415, 422):
            return VersionRejected(**common, advice="Check SERVICE_API_VERSION.")
        if status == 403:
            return PermissionDenied(**common, hint=_permission_hint(path=urlsplit(url).path, message=message))
        if status == 404:
            return NotFound(**common)
        if status >= 500:
            return ServerError(**common)
        return RequestFailed(**common)


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


def _message(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.reason_phrase
    if isinstance(body, Mapping):
        if isinstance(body.get("message"), str):
            return body["message"]
        errors = body.get("errors")
        if isinstance(errors, list):
            return "; ".join(str(e.get("message", e)) if isinstance(e, Mapping) else str(e) for e in errors)
    return response.reason_phrase


def _next_link(header: str | None) -> str | None:
    if not header:
        return None
    match = _LINK_NEXT.search(header)
    return match.group(1) if match else None


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _float(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
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
