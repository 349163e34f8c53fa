from pathlib import Path

import graphql
import httpx
import pytest

from pipelines.service import RetryPolicy, Secret, ServiceClient, ServiceConfig, TokenAuth
from pipelines.service.errors import NotFound, PermissionDenied, ServiceError
from pipelines.service.repos import SeatListing, list_enterprise_seats, list_seats, repository_stats_query


def test_stats_query_declares_typed_variables_per_alias():
    doc = graphql.parse(repository_stats_query(count=3))
    operation = next(d for d in doc.definitions if isinstance(d, graphql.OperationDefinitionNode))
    declared = {v.variable.name.value: graphql.print_ast(v.type) for v in operation.variable_definitions}
    assert declared == {f"{k}{i}": "String!" for i in range(3) for k in ("owner", "name")}
    aliases = [s.alias.value for s in operation.selection_set.selections]
    assert aliases == ["r0", "r1", "r2"]
    fragment = next(d for d in doc.definitions if isinstance(d, graphql.FragmentDefinitionNode))
    assert fragment.type_condition.name.value == "Repository"


# --- list_seats: an enveloped listing paged by Link ----------------------------------------

BASE = "http://127.0.0.1:9"


def _seat(user_id: int) -> dict:
    return {"assignee": {"id": user_id, "login": f"u{user_id}"}, "plan_type": "business"}


def _client(handler, tmp_path: Path, *, dialect: str = "service") -> ServiceClient:
    config = ServiceConfig(
        base_url=BASE,
        api_version="2026-03-10",
        dialect=dialect,
        etag_cache=tmp_path / "c.sqlite3",
        auth=TokenAuth(token=Secret("tok")),
    )
    return ServiceClient(config=config, transport=httpx.MockTransport(handler), retry=RetryPolicy(max_attempts=1))


def _seats_service(total: int, *, per_page_seen: list[str] | None = None, etags: bool = False):
    """Serves `total` seats, two a page, with Link rel="next" until the last page."""

    def handler(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params.get("page", "1"))
        if per_page_seen is not None:
            per_page_seen.append(request.url.params["per_page"])
        body = {"total_seats": total, "seats": [_seat(i) for i in range(2 * page - 1, min(2 * page, total) + 1)]}
        headers = {}
        if 2 * page < total:
            headers["Link"] = f'<{BASE}{request.url.path}?page={page + 1}&per_page=100>; rel="next"'
        elif page > 1:  # the last page links back only, as the public service does
            headers["Link"] = f'<{BASE}{request.url.path}?page=1&per_page=100>; rel="first"'
        if etags:
            tag = f'"{request.url.path}-{page}"'
            if request.headers.get("if-none-match") == tag:
                return httpx.Response(304, headers={"ETag": tag, **headers})
            headers["ETag"] = tag
        return httpx.Response(200, json=body, headers=headers)

    return handler


@pytest.mark.parametrize(("dialect", "product"), [("service", "assistant"), ("github", "copilot")])
def test_list_seats_asks_the_dialects_billing_path_and_follows_link_next(tmp_path, dialect, product):
    asked: list[str] = []
    per_page: list[str] = []
    serve = _seats_service(5, per_page_seen=per_page)

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        return serve(request)

    with _client(handler, tmp_path, dialect=dialect) as client:
        listing = list_seats(client, org="acme")
    assert listing.total_seats == 5
    assert [s["assignee"]["id"] for s in listing.seats] == [1, 2, 3, 4, 5]
    assert asked == [f"/orgs/acme/{product}/billing/seats"] * 3
    assert per_page == ["100"] * 3


@pytest.mark.parametrize(("dialect", "product"), [("service", "assistant"), ("github", "copilot")])
def test_list_enterprise_seats_asks_the_dialects_enterprise_billing_path_to_the_last_page(tmp_path, dialect, product):
    asked: list[str] = []
    serve = _seats_service(3)

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        return serve(request)

    with _client(handler, tmp_path, dialect=dialect) as client:
        listing = list_enterprise_seats(client, enterprise="acme-corp")
    assert [s["assignee"]["id"] for s in listing.seats] == [1, 2, 3]
    assert asked == [f"/enterprises/acme-corp/{product}/billing/seats"] * 2


def test_list_seats_of_an_org_without_seats_is_an_empty_listing_with_its_total(tmp_path):
    with _client(lambda r: httpx.Response(200, json={"total_seats": 0, "seats": []}), tmp_path) as client:
        source = f"{client.base_url}/orgs/acme/assistant/billing/seats"
        assert list_seats(client, org="acme") == SeatListing(
            total_seats=0, seats=[], envelope={"total_seats": 0}, source=source
        )


def test_list_seats_takes_the_total_from_the_first_page(tmp_path):
    def handler(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params.get("page", "1"))
        if page == 1:
            link = f'<{BASE}{request.url.path}?page=2&per_page=100>; rel="next"'
            return httpx.Response(200, json={"total_seats": 2, "seats": [_seat(1)]}, headers={"Link": link})
        return httpx.Response(200, json={"total_seats": 3, "seats": [_seat(2)]}, headers={"Link": '<x>; rel="first"'})

    with _client(handler, tmp_path) as client:
        listing = list_seats(client, org="acme")
    assert (listing.total_seats, len(listing.seats)) == (2, 2)


def test_a_second_listing_is_answered_by_304s_with_the_same_seats(tmp_path):
    handler = _seats_service(3, etags=True)
    with _client(handler, tmp_path) as client:
        first = list_seats(client, org="acme")
        before = client.stats.not_modified
        second = list_seats(client, org="acme")
        assert client.stats.not_modified - before == 2  # both pages

    assert second == first


@pytest.mark.parametrize(
    ("body", "what"),
    [
        ([_seat(1)], "a JSON object with a 'seats' array"),
        ({"total_seats": 1}, "a JSON object with a 'seats' array"),
        ({"seats": [_seat(1)]}, "no total_seats count"),
        ({"total_seats": "1", "seats": [_seat(1)]}, "no total_seats count"),
    ],
    ids=["array", "no_seats", "no_total", "total_not_a_number"],
)
def test_a_seats_page_of_another_shape_fails_naming_method_and_url(tmp_path, body, what):
    with _client(lambda r: httpx.Response(200, json=body), tmp_path) as client, pytest.raises(ServiceError) as raised:
        list_seats(client, org="acme")
    assert str(raised.value).startswith(f"GET {BASE}/orgs/acme/assistant/billing/seats")
    assert what in str(raised.value)


@pytest.mark.parametrize(("status", "error"), [(403, PermissionDenied), (404, NotFound)])
def test_seats_refused_or_not_enabled_raise_as_the_client_does(tmp_path, status, error):
    answer = httpx.Response(status, json={"message": "Resource not accessible by integration"})
    with _client(lambda r: answer, tmp_path) as client, pytest.raises(error) as raised:
        list_seats(client, org="acme")
    assert raised.value.method == "GET" and "/orgs/acme/assistant/billing/seats" in raised.value.url
