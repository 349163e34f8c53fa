"""Single-function tests of the client over httpx.MockTransport (the emulator covers the rest)."""

from pathlib import Path

import httpx
import pytest
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from pipelines.service import AppAuth, RetryPolicy, Secret, ServiceClient, ServiceConfig, TokenAuth
from pipelines.service.errors import PermissionDenied, SecondaryRateLimited, TransportFailed, VersionRejected

BASE = "http://127.0.0.1:9"


def _client(
    handler, *, clock, tmp_path: Path, dialect: str = "service", auth: TokenAuth | AppAuth | None = None, **kw
) -> ServiceClient:
    config = ServiceConfig(
        base_url=BASE,
        api_version="2026-03-10",
        dialect=dialect,
        etag_cache=tmp_path / "c.sqlite3",
        auth=auth or TokenAuth(token=Secret("tok-xyz")),
    )
    return ServiceClient(config=config, clock=clock, sleep=clock.sleep, transport=httpx.MockTransport(handler), **kw)


def test_pages_until_an_empty_page_when_there_is_no_link_header(clock, tmp_path) -> None:
    pages: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params["page"])
        pages.append(page)
        assert request.url.params["per_page"] == "100"
        return httpx.Response(200, json=[{"n": page * 10 + i} for i in range(2)] if page <= 3 else [])

    with _client(handler, clock=clock, tmp_path=tmp_path) as client:
        items = list(client.paginate(path="/repos/a/b/issues"))
    assert [i["n"] for i in items] == [10, 11, 20, 21, 30, 31]
    assert pages == [1, 2, 3, 4]


def test_pagination_is_lazy_so_a_caller_can_stop_early(clock, tmp_path) -> None:
    pages: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        pages.append(request.url.params["page"])
        return httpx.Response(200, json=[{"page": request.url.params["page"]}])

    with _client(handler, clock=clock, tmp_path=tmp_path) as client:
        iterator = client.paginate(path="/orgs/acme/members")
        assert next(iterator) == {"page": "1"}
        assert next(iterator) == {"page": "2"}
    assert pages == ["1", "2"]


def test_link_next_is_followed_and_its_absence_ends_the_listing(clock, tmp_path) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params["page"])
        if page == 1:
            return httpx.Response(
                200,
                json=[1],
                headers={"Link": f'<{BASE}/x?page=7&per_page=100>; rel="next", <{BASE}/x?page=7>; rel="last"'},
            )
        return httpx.Response(200, json=[page], headers={"Link": f'<{BASE}/x?page=1>; rel="first"'})

    with _client(handler, clock=clock, tmp_path=tmp_path) as client:
        assert list(client.paginate(path="/x")) == [1, 7]


@pytest.mark.parametrize("dialect", ["service", "github"])
def test_every_request_carries_accept_version_authorization_and_content_type(clock, tmp_path, dialect) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(201, json={"ok": True})

    with _client(handler, clock=clock, tmp_path=tmp_path, dialect=dialect) as client:
        client.post_json(path="/user/repos", json={"name": "r"})
    request = seen[0]
    media = "application/vnd.service+json" if dialect == "service" else "application/vnd.github+json"
    version = "X-Service-Api-Version" if dialect == "service" else "X-GitHub-Api-Version"
    assert request.headers["Accept"] == media
    assert request.headers[version] == "2026-03-10"
    assert request.headers["Authorization"] == "Bearer tok-xyz"
    assert request.headers["Content-Type"] == "application/json"


@pytest.mark.parametrize("retry_after", ["0", "-5", "soon"])
def test_an_unusable_retry_after_waits_a_minute_then_doubles(clock, tmp_path, retry_after) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(429, json={"message": "secondary rate limit"}, headers={"retry-after": retry_after})

    policy = RetryPolicy(max_attempts=4)
    with _client(handler, clock=clock, tmp_path=tmp_path, retry=policy) as client:
        with pytest.raises(SecondaryRateLimited):
            client.get_json(path="/x")
        assert client.stats.retries == {"secondary_rate_limit": 3}
    assert clock.sleeps == [60.0, 120.0, 240.0]


def test_a_rejected_version_is_named_and_not_retried(clock, tmp_path) -> None:
    calls = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        return httpx.Response(400, json={"message": "Unsupported API version 1999-01-01"})

    with (
        _client(handler, clock=clock, tmp_path=tmp_path) as client,
        pytest.raises(VersionRejected, match="SERVICE_API_VERSION"),
    ):
        client.get_json(path="/rate_limit")
    assert len(calls) == 1


def test_permission_hint_depends_on_scope_and_policy(clock, tmp_path) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if "enterprises" in request.url.path:
            return httpx.Response(403, json={"message": "Resource not accessible"})
        return httpx.Response(403, json={"message": "The metrics policy is disabled"})

    with _client(handler, clock=clock, tmp_path=tmp_path) as client:
        with pytest.raises(PermissionDenied, match="policy is disabled for this organization"):
            client.get_json(path="/orgs/acme/assistant/metrics/reports/organization-28-day/latest")
        with pytest.raises(PermissionDenied, match="billing manager"):
            client.get_json(path="/enterprises/corp/assistant/metrics/reports/enterprise-28-day/latest")
        assert client.stats.requests == 2


def test_download_links_get_no_authorization_even_on_the_service_host(clock, tmp_path) -> None:
    from pipelines.service.reports import open_report_file

    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=b'{"a":1}\n')

    with _client(handler, clock=clock, tmp_path=tmp_path) as client:
        for link in (f"{BASE}/_downloads/k/0.ndjson?signature=s1", "https://files.example/k/1.ndjson?sig=s2"):
            with open_report_file(client, link) as stream:
                assert b"".join(stream.iter_bytes()) == b'{"a":1}\n'
        assert client.budgets == {}
    assert [r.headers.get("Authorization") for r in seen] == [None, None]
    assert all(r.headers["Accept-Encoding"] == "identity" for r in seen)


@hypothesis_settings(max_examples=30, deadline=None)
@given(
    total=st.integers(min_value=0, max_value=25), per_page=st.integers(min_value=1, max_value=7), use_link=st.booleans()
)
def test_pagination_returns_every_item_once_in_order(tmp_path_factory, total, per_page, use_link) -> None:
    from tests.unit.service.conftest import FakeClock

    items = list(range(total))

    def handler(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params["page"])
        size = int(request.url.params["per_page"])
        chunk = items[(page - 1) * size : page * size]
        headers = {}
        if use_link:
            more = page * size < total
            headers["Link"] = (
                f'<{BASE}/x?page={page + 1}&per_page={size}>; rel="next"' if more else f'<{BASE}/x?page=1>; rel="first"'
            )
        return httpx.Response(200, json=chunk, headers=headers)

    clock = FakeClock()
    with _client(handler, clock=clock, tmp_path=tmp_path_factory.mktemp("c")) as client:
        assert list(client.paginate(path="/x", params={"per_page": per_page})) == items


def test_a_retry_after_beyond_the_cap_fails_at_once(clock, tmp_path) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(403, json={"message": "secondary rate limit"}, headers={"retry-after": "7200"})

    with _client(handler, clock=clock, tmp_path=tmp_path) as client:
        with pytest.raises(SecondaryRateLimited):
            client.get_json(path="/x")
        assert client.stats.requests == 1


def test_a_refused_installation_token_is_exchanged_again_once(clock, tmp_path, rsa_pem) -> None:
    issued: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/access_tokens"):
            issued.append(f"inst-{len(issued) + 1}")
            return httpx.Response(201, json={"token": issued[-1], "expires_at": "2099-01-01T00:00:00Z"})
        if request.headers["Authorization"] == "Bearer inst-1":
            return httpx.Response(401, json={"message": "Bad credentials"})
        return httpx.Response(200, json={"ok": True})

    auth = AppAuth(app_id="1", private_key=Secret(rsa_pem[0]), installation_id="9", base_url=BASE, clock=clock)
    with _client(handler, clock=clock, tmp_path=tmp_path, auth=auth) as client:
        assert client.get_json(path="/orgs/acme/members") == {"ok": True}
    assert issued == ["inst-1", "inst-2"]


def test_a_create_whose_connection_dropped_is_not_repeated_but_a_query_is(clock, tmp_path) -> None:
    calls: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request.url.path)
        if len(calls) % 2:
            raise httpx.RemoteProtocolError("Server disconnected without sending a response.")
        return httpx.Response(200, json={"data": {"ok": True}})

    with _client(handler, clock=clock, tmp_path=tmp_path) as client:
        with pytest.raises(TransportFailed):
            client.post_json(path="/repos/a/b/issues", json={"title": "t"})
        assert calls == ["/repos/a/b/issues"]
        calls.clear()
        assert client.graphql(query="query { ok }") == {"ok": True}
        assert calls == ["/graphql", "/graphql"]
