"""Repositories, issues, pull requests, members and seats: typed wrappers over REST
(docs/service-contract.md §4, and the seats extension of docs/extensions.md) and the aliased
GraphQL repository-stats query (§5).

The GETs feed the snapshots; the POSTs exist for tests and the demo's seeding (the pipeline
never writes to the service). Query parameters are constant dicts in one order, so the same
listing always asks for the same URL and the client's ETag cache can answer it with a 304.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import quote

from pipelines.service.errors import GraphQLNotFound, ServiceError

if TYPE_CHECKING:
    from pipelines.service.client import ServiceClient

Record = dict[str, Any]

PER_PAGE = 100
_LIST_PARAMS: Mapping[str, Any] = MappingProxyType({"per_page": PER_PAGE})
_ISSUE_PARAMS: Mapping[str, Any] = MappingProxyType({"state": "all", "per_page": PER_PAGE})
_QUERIES = Path(__file__).parent / "queries"


def get_repository(client: ServiceClient, *, owner: str, name: str) -> Record:
    """`GET /repos/{owner}/{repo}`; raises NotFound / PermissionDenied as the client does."""
    return cast(Record, client.get_json(path=_repo_path(owner=owner, name=name)))


def list_org_repositories(client: ServiceClient, *, org: str) -> Iterator[Record]:
    """Every repository of `org`, page by page (`GET /orgs/{org}/repos`)."""
    return client.paginate(path=f"/orgs/{_seg(org)}/repos", params=_LIST_PARAMS)


def list_issues(client: ServiceClient, *, owner: str, name: str) -> Iterator[Record]:
    """Every issue and pull request of a repository, open and closed, to the last page."""
    return client.paginate(path=f"{_repo_path(owner=owner, name=name)}/issues", params=_ISSUE_PARAMS)


def list_org_members(client: ServiceClient, *, org: str) -> Iterator[Record]:
    """Every member of `org` (`GET /orgs/{org}/members`)."""
    return client.paginate(path=f"/orgs/{_seg(org)}/members", params=_LIST_PARAMS)


SEAT_ITEMS = "seats"  # where a seat listing's page holds its seats: {"total_seats": N, "seats": [...]}


@dataclass(frozen=True)
class SeatListing:
    """A seat listing: `total_seats` as the first page says it, and every seat listed; `envelope`,
    the first page without its seats (what a listing says besides them), and `source`, its URL."""

    total_seats: int
    seats: list[Record]
    envelope: Record
    source: str


def list_seats(client: ServiceClient, *, org: str) -> SeatListing:
    """Every seat of `org` (`GET /orgs/{org}/{product}/billing/seats`), to the last page.

    The listing answers `{"total_seats": N, "seats": [...]}` per page; 403 (no billing
    permission) and 404 (product not enabled) raise PermissionDenied / NotFound as the client does.
    """
    return _seat_listing(client, path=f"/orgs/{_seg(org)}/{client.dialect.product}/billing/seats")


def list_enterprise_seats(client: ServiceClient, *, enterprise: str) -> SeatListing:
    """Every seat of `enterprise` (`GET /enterprises/{enterprise}/{product}/billing/seats`).

    One seat per holder and granting organization or enterprise team, so a user may be listed
    more than once; `total_seats` counts each user once. Errors as `list_seats`.
    """
    return _seat_listing(client, path=f"/enterprises/{_seg(enterprise)}/{client.dialect.product}/billing/seats")


def _seat_listing(client: ServiceClient, *, path: str) -> SeatListing:
    source = f"{client.base_url}{path}"
    listing: SeatListing | None = None
    for page, items in client.paginate_envelope(path=path, items_key=SEAT_ITEMS, params=_LIST_PARAMS):
        if listing is None:  # the first page says what the listing is, before any other is asked for
            envelope = {key: value for key, value in page.items() if key != SEAT_ITEMS}
            listing = seat_listing(envelope, [], source=source)
        listing.seats.extend(items)
    return listing or seat_listing({}, [], source=source)


def seat_listing(envelope: Record, seats: list[Record], *, source: str) -> SeatListing:
    """A listing from its envelope and seats, as fetched or as archived; ServiceError when the
    envelope holds no `total_seats` count."""
    value = envelope.get("total_seats")
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 2**63:
        raise ServiceError(f"GET {source} answered no total_seats count: {value!r}")
    return SeatListing(total_seats=value, seats=seats, envelope=envelope, source=source)


def create_repository(
    client: ServiceClient, *, name: str, description: str = "", private: bool = False, auto_init: bool = False
) -> Record:
    """`POST /user/repos`: a repository owned by the authenticated user."""
    answer = client.post_json(
        path="/user/repos",
        json={"name": name, "description": description, "private": private, "auto_init": auto_init},
    )
    return cast(Record, answer)


def create_issue(
    client: ServiceClient,
    *,
    owner: str,
    name: str,
    title: str,
    body: str = "",
    labels: Sequence[str] = (),
) -> Record:
    """`POST /repos/{owner}/{repo}/issues`."""
    answer = client.post_json(
        path=f"{_repo_path(owner=owner, name=name)}/issues",
        json={"title": title, "body": body, "labels": list(labels)},
    )
    return cast(Record, answer)


def create_pull_request(
    client: ServiceClient, *, owner: str, name: str, title: str, head: str, base: str, body: str = ""
) -> Record:
    """`POST /repos/{owner}/{repo}/pulls`."""
    answer = client.post_json(
        path=f"{_repo_path(owner=owner, name=name)}/pulls",
        json={"title": title, "head": head, "base": base, "body": body},
    )
    return cast(Record, answer)


@dataclass(frozen=True)
class NotResolved:
    """A repository the service did not resolve (deleted or renamed since it was listed)."""

    message: str


_NULL_NODE = NotResolved("GraphQL returned no repository for this name")


def fetch_repository_stats(
    client: ServiceClient, *, repositories: Sequence[tuple[str, str]]
) -> list[Record | NotResolved]:
    """One GraphQL call for several (owner, name) pairs; nodes in the order asked.

    A repository the service answered null for, alone or with a NOT_FOUND error at its alias,
    is NotResolved with the service's message while the others land. Any other `errors`
    array raises GraphQLError from the client, naming what the service said.
    """
    if not repositories:
        return []
    variables: dict[str, str] = {}
    for i, (owner, name) in enumerate(repositories):
        variables[f"owner{i}"] = owner
        variables[f"name{i}"] = name
    aliases = [f"r{i}" for i in range(len(repositories))]
    missing: dict[str, str] = {}
    try:
        data = client.graphql(query=repository_stats_query(count=len(repositories)), variables=variables) or {}
    except GraphQLNotFound as exc:
        missing = {str(path[0]): message for path, message in exc.not_found.items() if len(path) == 1}
        # Only a null alias of this batch is a missing repository; a NOT_FOUND deeper down, or
        # naming something else, is a failure of the query as before.
        if len(missing) != len(exc.not_found) or any(a not in aliases or exc.data.get(a) is not None for a in missing):
            raise
        data = exc.data
    nodes: list[Record | NotResolved] = []
    for alias in aliases:
        node = data.get(alias)
        nodes.append(NotResolved(missing[alias]) if alias in missing else _NULL_NODE if node is None else node)
    return nodes


@cache
def repository_stats_query(*, count: int) -> str:
    """The operation for `count` repositories: aliases r0…rN, typed variables owner0/name0…."""
    declared = ", ".join(f"$owner{i}: String!, $name{i}: String!" for i in range(count))
    fields = "\n".join(
        f"  r{i}: repository(owner: $owner{i}, name: $name{i}) {{ ...RepositoryStats }}" for i in range(count)
    )
    return f"query RepositoryStats({declared}) {{\n{fields}\n}}\n\n{_fragment()}"


@cache
def _fragment() -> str:
    return (_QUERIES / "repository_stats.graphql").read_text(encoding="utf-8")


def _repo_path(*, owner: str, name: str) -> str:
    return f"/repos/{_seg(owner)}/{_seg(name)}"


def _seg(value: str) -> str:
    # Names come from configuration; a stray "/" or "?" must not change which URL is asked.
    return quote(value, safe="")
