"""The HTTP client of the platform: headers, retries, rate limits, pages, GraphQL, signed links.

What the client does not decide itself lives beside it: credentials are ``httpx.Auth`` flows
(``auth.py``), conditional GETs a transport (``_transports/``), which failure tenacity retries
and after how long a chain of policies (``_retry.py``), and what an error answer means
``_failure.py``. Clock, sleep and transport are injectable, so tests drive every wait on a fake
clock and every answer by hand.

Long because it is one class, whose request path (budgets, retries, pages, links) shares its
state; the decisions it could hand out already live in the modules above.
"""

from __future__ import annotations

import json as jsonlib
import logging
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, TypeVar
from urllib.parse import urlsplit

import httpx

from pipelines.service import graphql as _graphql
from pipelines.service._answer import Answer
from pipelines.service._config import ServiceConfig
from pipelines.service._failure import failed_request, failure, link_failure, no_answer
from pipelines.service._redaction import install_log_redaction
from pipelines.service._retry import RetryPolicy
from pipelines.service._stats import Budget, ClientStats, budget_in, budget_of
from pipelines.service._transports import CACHE_IDENTITY, NOT_MODIFIED, CachingTransport, default_transport
from pipelines.service.auth import AppAuth
from pipelines.service.dialect import Dialect, get_dialect
from pipelines.service.errors import ServiceError, TransportFailed, redact_url

__all__ = ["ServiceClient"]

_log = logging.getLogger(__name__)

_USER_AGENT = "metrics-etl/0.1"
_T = TypeVar("_T")
_DEFAULT_RETRY = RetryPolicy()


class ServiceClient:
    """One session with the platform; use as a context manager.

    ``config`` gives the address, credentials, dialect, version and cache path. ``transport``
    is for unit tests of one function (``httpx.MockTransport``); the ETag cache, when
    configured, is stacked on it.
    """

    def __init__(
        self,
        *,
        config: ServiceConfig,
        transport: httpx.BaseTransport | None = None,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
        retry: RetryPolicy = _DEFAULT_RETRY,
    ) -> None:
        install_log_redaction()
        self.config = config
        self.dialect: Dialect = get_dialect(config.dialect)
        self._base_url = config.base_url
        self._graphql_url = config.graphql_endpoint
        self._clock = clock
        self._sleep = sleep
        self._retry = retry
        self._auth = config.auth
        # Which setting names each configured host, to say what to fix when it cannot be reached.
        graphql, base = _origin(self._graphql_url), _origin(self._base_url)
        self._setting_of = {graphql: "SERVICE_GRAPHQL_URL", base: "SERVICE_BASE_URL"}
        self._trusted = {graphql, base}
        self._answered: set[str] = set()
        self._lock = threading.Lock()
        self._requests = 0
        self._not_modified = 0
        self._retries: Counter[str] = Counter()
        self._waited = 0.0
        self._budgets: dict[str, Budget] = {}
        api_transport = (
            CachingTransport(transport or default_transport(service_url=self._base_url), path=config.etag_cache)
            if config.etag_cache is not None
            else transport
        )
        # Every API request counts and reports a budget, the token exchange included (hooks see it).
        self._api = httpx.Client(
            transport=api_transport,
            timeout=config.timeout,
            follow_redirects=True,
            headers={
                "Accept": self.dialect.media_type,
                self.dialect.version_header: config.api_version,
                "User-Agent": _USER_AGENT,
            },
            event_hooks={"request": [self._on_request], "response": [self._on_response]},
        )
        # Signed links are another service: no credentials, no cache, no budget.
        self._links = httpx.Client(transport=transport, timeout=config.timeout, follow_redirects=True)

    def __enter__(self) -> ServiceClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._api.close()
        self._links.close()

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
        exchanges = self._auth.exchanges if isinstance(self._auth, AppAuth) else 0
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
        return self.get(path=path, params=params, conditional=conditional).json()

    def get(self, *, path: str, params: Mapping[str, Any] | None = None, conditional: bool = True) -> Answer:
        """GET a path (or absolute URL): the whole answer, for callers that read its headers too."""
        return self._request(method="GET", url=self._url(path), params=params, conditional=conditional)

    def post_json(self, *, path: str, json: Any = None) -> Any:
        return self._request(method="POST", url=self._url(path), json=json).json()

    def paginate(self, *, path: str, params: Mapping[str, Any] | None = None) -> Iterator[Any]:
        """Items of every page, lazily: follows ``Link: rel="next"``, else stops at an empty page."""
        for _, items in self._pages(path=path, params=params, items_of=_array_items):
            yield from items

    def paginate_envelope(
        self, *, path: str, items_key: str, params: Mapping[str, Any] | None = None
    ) -> Iterator[tuple[Mapping[str, Any], list[Any]]]:
        """Pages of a listing that answers an object holding its items under ``items_key``
        (``{"total_seats": N, "seats": [...]}``): (the page's object, its items), lazily.

        Pages are walked as ``paginate`` walks them (``Link: rel="next"``, else to an empty
        page), conditionally like every GET; a page that is not such an object raises
        ServiceError naming the method and URL.
        """
        return self._pages(path=path, params=params, items_of=lambda body, url: _envelope_items(body, url, items_key))

    def _pages(
        self,
        *,
        path: str,
        params: Mapping[str, Any] | None,
        items_of: Callable[[Any, str], tuple[Any, list[Any]]],
    ) -> Iterator[tuple[Any, list[Any]]]:
        base = self._url(path)
        page = 1
        query: dict[str, Any] | None = {"per_page": 100, **(params or {}), "page": page}
        url = base
        first = True
        while True:
            answer = self._request(method="GET", url=url, params=query, conditional=True)
            body, items = items_of(answer.json(), answer.url)
            if items or first:  # an empty listing's first page still says what its envelope says
                yield body, items
            if not items:
                return
            first = False
            if answer.next_link is not None:
                url, query = answer.next_link, None
            elif answer.headers.get("link"):
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
                        self._budgets[name] = budget_of(values, resource=name)
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
        response = self._with_retries(method="GET", url=url, call=lambda: self._open_link_once(url))
        try:
            yield response
        finally:
            response.close()

    # --- internals ------------------------------------------------------------------------

    def _url(self, path: str) -> str:
        return path if path.startswith(("http://", "https://")) else f"{self._base_url}{path}"

    def _request(
        self,
        *,
        method: str,
        url: str,
        params: Mapping[str, Any] | None = None,
        json: Any = None,
        conditional: bool = False,
    ) -> Answer:
        request_url = str(httpx.URL(url, params=params)) if params else url
        extensions: dict[str, Any] = {}
        if conditional and method == "GET":
            extensions[CACHE_IDENTITY] = self._auth.identity if self._auth is not None else "anonymous"
        content = jsonlib.dumps(json).encode() if json is not None else None
        headers = {"Content-Type": "application/json"} if json is not None else None
        # Credentials only go to the configured service, never to a link on another host.
        auth = self._auth if _origin(request_url) in self._trusted else None

        def call() -> Answer:
            request = self._api.build_request(
                method, request_url, content=content, headers=headers, extensions=extensions
            )
            try:
                response = self._api.send(request, auth=auth)
            except httpx.TransportError as exc:
                # The failed request may be the token exchange the auth flow sent first.
                failed = failed_request(exc, default=request)
                origin = _origin(str(failed.url))
                unanswered = self._setting_of.get(origin) if origin not in self._answered else None
                raise no_answer(
                    method=failed.method, url=str(failed.url), exc=exc, unanswered_setting=unanswered
                ) from None
            if response.extensions.get(NOT_MODIFIED):
                with self._lock:
                    self._not_modified += 1
            if response.status_code >= 400:
                raise failure(response=response, dialect=self.dialect)
            return Answer(
                method=method,
                status=response.status_code,
                headers=response.headers,
                body=response.content,
                url=request_url,
            )

        return self._with_retries(method=method, url=request_url, call=call)

    def _with_retries(self, *, method: str, url: str, call: Callable[[], _T]) -> _T:
        def count(kind: str, wait: float) -> None:
            with self._lock:
                self._retries[kind] += 1
                self._waited += wait
            _log.warning("retrying %s %s after %s in %.1fs", method, redact_url(url, keep_query=False), kind, wait)

        retrying = self._retry.retrying(
            clock=self._clock,
            sleep=self._sleep,
            max_wait=self.config.rate_limit_max_wait,
            repeatable=self._repeatable,
            on_retry=count,
        )
        return retrying(call)

    def _repeatable(self, exc: TransportFailed) -> bool:
        """Whether the failed request may be sent twice: reads, GraphQL queries, the token exchange."""
        path = urlsplit(exc.url).path
        return (
            exc.method == "GET"
            or _origin(exc.url) + path == _origin(self._graphql_url) + urlsplit(self._graphql_url).path
            or path.endswith("/access_tokens")
        )

    def _open_link_once(self, url: str) -> httpx.Response:
        # No Authorization: the link's signature is the credential, and it may be another host.
        headers = {"Accept-Encoding": "identity", "User-Agent": _USER_AGENT}
        request = self._links.build_request("GET", url, headers=headers)
        try:
            response = self._links.send(request, stream=True)
        except httpx.TransportError as exc:
            safe = redact_url(url, keep_query=False)
            raise TransportFailed(method="GET", url=safe, reason=type(exc).__name__) from None
        if response.status_code < 400:
            return response
        response.close()
        raise link_failure(url=url, status=response.status_code)

    def _on_request(self, request: httpx.Request) -> None:
        with self._lock:
            self._requests += 1

    def _on_response(self, response: httpx.Response) -> None:
        self._answered.add(_origin(str(response.request.url)))
        if (budget := budget_in(response.headers)) is not None:
            with self._lock:
                self._budgets[budget.resource or "core"] = budget


def _array_items(body: Any, url: str) -> tuple[Any, list[Any]]:
    if not isinstance(body, list):
        raise ServiceError(f"GET {redact_url(url)} did not answer a JSON array")
    return body, body


def _envelope_items(body: Any, url: str, key: str) -> tuple[Mapping[str, Any], list[Any]]:
    items = body.get(key) if isinstance(body, Mapping) else None
    if not isinstance(items, list):
        raise ServiceError(f"GET {redact_url(url)} did not answer a JSON object with a {key!r} array")
    return body, items


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()
