"""Collect one snapshot day of the organization's repositories, stats, issues, members and seats.

REST gives the repositories (by id), their issues and the members; GraphQL gives the counts,
several repositories per call, with a batch size that halves when the service chokes (502,
504, no answer) and grows back after successes. A repository answering 404 or 403 is skipped
with a warning, and so is one GraphQL cannot resolve (deleted or renamed since the listing: a
NOT_FOUND at its alias) while the rest of its batch lands; a failure at organization level, or
any other GraphQL error, fails the run. An organization whose seats answer 403 (no billing
permission) or 404 (the product is not enabled) is a warning (endpoint "seats") too, and so
is an enterprise's (endpoint "enterprise_seats"). A seat whose assignee is null lands as an
unassigned seat; one that cannot land is left out alone, with a warning naming its place in the
listing and why (endpoint "seat_records" or "enterprise_seat_records"), counted beside the
listing's total (left_out_seats, left_out_holders), and everything else of the snapshot lands.
Each seat listing is archived as a report file is (seat_listings.py), and what its seats carried
beyond the declared fields is told as drift (raw.field_drift, level "seats").

Long because it is one collection run: its settings, result and cost types are what its
REST and GraphQL steps fill in, and each step shares the same skip-or-fail rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager, suppress
from dataclasses import asdict, dataclass, replace
from datetime import UTC, date, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from pipelines.ingest._batch import AdaptiveBatch
from pipelines.ingest.archive_files import archive_place, remove_unrecorded
from pipelines.ingest.forgotten import without_forgotten
from pipelines.ingest.seat_listings import Listed, archive_listings
from pipelines.service import canonical_scopes, forget_cached
from pipelines.service import repos as api
from pipelines.service.errors import (
    ConfigError,
    NotFound,
    PermissionDenied,
    ServerError,
    ServiceError,
    TransportFailed,
)
from pipelines.transform import seats as seats_tf
from pipelines.transform import snapshots as tf
from pipelines.warehouse.snapshots import listing_files, replace_snapshot_day

if TYPE_CHECKING:
    import duckdb

    from pipelines.config import Settings
    from pipelines.service import ServiceClient
    from pipelines.warehouse.erasure import Forgotten

__all__ = [
    "SnapshotCost",
    "SnapshotFailed",
    "SnapshotResult",
    "SnapshotSettings",
    "SnapshotWarning",
    "collect_snapshot",
    "run_snapshot",
]

_CHOKE_STATUSES = frozenset({502, 504})


class SnapshotFailed(ServiceError):
    """The snapshot cannot be taken at all (organization unknown, no permission, …)."""


@dataclass(frozen=True)
class SnapshotSettings:
    """What to snapshot. `repositories` ("owner/name", …) empty: every repository of each org;
    `enterprises`: whose seats to list beside the organizations'."""

    orgs: tuple[str, ...]
    repositories: tuple[str, ...] = ()
    enterprises: tuple[str, ...] = ()
    graphql_batch_size: int = 50
    graphql_grow_after: int = 2

    @classmethod
    def from_settings(cls, settings: Settings) -> SnapshotSettings:
        """`SERVICE_ORG`, `SERVICE_REPOS` and `SERVICE_ENTERPRISE`; the members listing needs the organizations."""
        if not settings.orgs:
            raise ConfigError("SERVICE_ORG is not set: snapshots need the organization (a comma list for several)")
        return cls(orgs=settings.orgs, repositories=settings.repos, enterprises=settings.enterprises)


@dataclass(frozen=True)
class SnapshotWarning:
    repository: str
    endpoint: str
    status: int
    message: str


@dataclass(frozen=True)
class SnapshotCost:
    """What one collection spent; `as_metadata()` is shaped for Dagster metadata.

    `requests` counts every HTTP request (retries and the two rate-limit checks included);
    `rest_requests` the REST GETs for data, of which `not_modified` were answered 304.
    `graphql_cost` is the drop in the GraphQL budget, when the service reports one.
    """

    requests: int
    rest_requests: int
    not_modified: int
    graphql_calls: int
    graphql_requests: int
    graphql_batch_failures: int
    graphql_cost: int | None
    rate_limit_remaining_before: int | None
    rate_limit_remaining_after: int | None

    @property
    def not_modified_share(self) -> float:
        return self.not_modified / self.rest_requests if self.rest_requests else 0.0

    def as_metadata(self) -> dict[str, int | float]:
        out: dict[str, int | float] = {k: v for k, v in asdict(self).items() if v is not None}
        out["not_modified_share"] = round(self.not_modified_share, 4)
        return out


@dataclass(frozen=True)
class SnapshotResult:
    day: date
    frames: Mapping[str, pl.DataFrame]
    warnings: tuple[SnapshotWarning, ...]
    cost: SnapshotCost
    seat_listings: tuple[Listed, ...] = ()  # every seat listing as fetched, for the archive


@dataclass(frozen=True)
class _Repo:
    id: int
    full_name: str
    owner: str
    name: str


def collect_snapshot(
    client: ServiceClient, *, settings: SnapshotSettings, day: date, repositories_only: bool = False
) -> SnapshotResult:
    """Fetch everything for `day` and shape it into one frame per snapshot table; with
    `repositories_only` (a refresh), the repositories, their issues and counts, no members or seats."""
    requests_at_start, _ = _counts(client)
    # As the reports do: each scope under the service's spelling of its name.
    scopes = canonical_scopes(
        client,
        [*(("organization", org) for org in settings.orgs), *(("enterprise", name) for name in settings.enterprises)],
    )
    settings = replace(
        settings,
        orgs=tuple(name for scope, name in scopes if scope == "organization"),
        enterprises=tuple(name for scope, name in scopes if scope == "enterprise"),
    )
    budget_before = _budget(client)
    requests_before, not_modified_before = _counts(client)
    warnings: list[SnapshotWarning] = []

    repos, repo_records = _collect_repositories(client, settings=settings, warnings=warnings)
    issues = _collect_issues(client, repos=repos, day=day, warnings=warnings)
    members = []
    for org in () if repositories_only else settings.orgs:
        with _left_out(warnings, org, "member_records") as refused:
            members.append(
                tf.org_members_frame(
                    records=_org_level(partial(api.list_org_members, client, org=org), org=org, what="members"),
                    day=day,
                    org=org,
                    refused=refused,
                )
            )
    listed: list[Listed] = []
    seat_owners = ((), ()) if repositories_only else (settings.orgs, settings.enterprises)
    seats, org_unassigned, seat_totals = _collect_seats(
        client, _ORG_SEATS, names=seat_owners[0], day=day, warnings=warnings, listed=listed
    )
    enterprise_seats, enterprise_unassigned, enterprise_totals = _collect_seats(
        client, _ENTERPRISE_SEATS, names=seat_owners[1], day=day, warnings=warnings, listed=listed
    )
    nodes, graphql = _collect_stats(client, repos=repos, settings=settings, warnings=warnings)

    requests_after, not_modified_after = _counts(client)
    budget_after = _budget(client)
    requests_at_end, _ = _counts(client)
    with _left_out(warnings, ",".join(settings.repositories or settings.orgs), "repository_records") as refused:
        repositories = tf.repositories_frame(records=repo_records, day=day, refused=refused)
    frames = {
        "repositories": repositories,
        "repository_stats": tf.repository_stats_frame(nodes=nodes, day=day),
        "issues": issues,
        "org_members": pl.concat(members) if members else tf.org_members_frame(records=[], day=day, org=""),
        "seats": seats,
        "seat_totals": seat_totals,
        "enterprise_seats": enterprise_seats,
        "enterprise_seat_totals": enterprise_totals,
        "unassigned_seats": pl.concat([org_unassigned, enterprise_unassigned]),
        "warnings": tf.warnings_frame(warnings=[asdict(w) for w in warnings], day=day),
    }
    work = requests_after - requests_before
    graphql_cost = None
    if budget_before.graphql is not None and budget_after.graphql is not None:
        graphql_cost = max(0, budget_before.graphql - budget_after.graphql)
    cost = SnapshotCost(
        requests=requests_at_end - requests_at_start,
        rest_requests=work - graphql["requests"],
        not_modified=not_modified_after - not_modified_before,
        graphql_calls=graphql["calls"],
        graphql_requests=graphql["requests"],
        graphql_batch_failures=graphql["failures"],
        graphql_cost=graphql_cost,
        rate_limit_remaining_before=budget_before.core,
        rate_limit_remaining_after=budget_after.core,
    )
    return SnapshotResult(day=day, frames=frames, warnings=tuple(warnings), cost=cost, seat_listings=tuple(listed))


def run_snapshot(
    client: ServiceClient,
    conn: duckdb.DuckDBPyConnection,
    *,
    settings: SnapshotSettings,
    day: date,
    forgotten: Forgotten | None = None,
    raw_dir: Path | None = None,
) -> SnapshotResult:
    """Collect `day` and replace it in the warehouse in one transaction, each seat listing archived
    under `raw_dir` (None: a caller keeping no raw archive, as a benchmark) with its raw.report_files
    row; the files of the day's listings no row names (fetched before, or left by a killed run) are
    removed once it commits.

    People erased by `metrics-etl forget` (`forgotten`) are left out of what lands and of the
    archive, and the cached listings naming them are removed from the ETag cache (ingest/forgotten.py).
    """
    fetched_at = datetime.now(UTC)
    result = collect_snapshot(client, settings=settings, day=day)
    if forgotten is not None:
        result = replace(result, frames=_without_forgotten(result.frames, forgotten))
    files, drift = archive_listings(
        list(result.seat_listings), raw_dir=raw_dir, day=day, fetched_at=fetched_at, forgotten=forgotten
    )
    # The day's listings' directories, where this data home is now (the rows keep where it was).
    directories = (
        []
        if raw_dir is None
        else [
            raw_dir.joinpath(*archive_place(path)[:-1])
            for path in [*listing_files(conn, day=day), *files["archive_path"].to_list()]
        ]
    )
    try:
        replace_snapshot_day(conn, day=day, frames=result.frames, listings=files, drift=drift)
    except BaseException:
        with suppress(Exception):  # the listings this snapshot archived, never landed
            remove_unrecorded(conn, directories)
        raise
    # The day's earlier listings (another content, another name), and any a killed run left
    # there, are no longer named by any row (pipelines/ingest/archive_files.py).
    remove_unrecorded(conn, directories)
    if forgotten is not None and client.config.etag_cache is not None:
        forget_cached(client.config.etag_cache, forgotten.names_line)
    return result


def _without_forgotten(frames: Mapping[str, pl.DataFrame], forgotten: Forgotten) -> dict[str, pl.DataFrame]:
    """The frames without the erased people. The listings' totals stay as the service gave them;
    the seats (holders, for an enterprise) left out are counted beside them."""
    kept = without_forgotten(frames, forgotten, schema="snapshots")
    for seats, totals, owner, column, count in (
        ("seats", "seat_totals", "org_login", "erased_seats", pl.len()),
        ("enterprise_seats", "enterprise_seat_totals", "enterprise", "erased_holders", pl.col("user_id").n_unique()),
    ):
        listed = frames[seats].group_by(owner).agg(count.alias("listed"))
        left = kept[seats].group_by(owner).agg(count.alias("left"))
        erased = listed.join(left, on=owner, how="left").select(
            owner, (pl.col("listed") - pl.col("left").fill_null(0)).alias(column)
        )
        kept[totals] = kept[totals].join(erased, on=owner, how="left").with_columns(pl.col(column).fill_null(0))
    return kept


def _collect_repositories(
    client: ServiceClient, *, settings: SnapshotSettings, warnings: list[SnapshotWarning]
) -> tuple[list[_Repo], list[dict[str, Any]]]:
    if settings.repositories:
        records = []
        for full_name in settings.repositories:
            owner, sep, name = full_name.partition("/")
            if not sep or not owner or not name or "/" in name:
                raise SnapshotFailed(f"SERVICE_REPOS entry {full_name!r} is not owner/name")
            record = _per_repository(
                partial(api.get_repository, client, owner=owner, name=name),
                repo=full_name,
                endpoint="repository",
                warnings=warnings,
            )
            if record is not None:
                records.append(record)
    else:
        records = [
            record
            for org in settings.orgs
            for record in _org_level(partial(api.list_org_repositories, client, org=org), org=org, what="repositories")
        ]
    by_id: dict[int, _Repo] = {}
    for rec in records:
        if not _named(rec):
            continue  # left out of snapshots.repositories with a warning, and not walked further
        owner, _, name = rec["full_name"].partition("/")
        by_id[rec["id"]] = _Repo(id=rec["id"], full_name=rec["full_name"], owner=owner, name=name)
    return sorted(by_id.values(), key=lambda r: r.id), records


def _collect_issues(
    client: ServiceClient, *, repos: list[_Repo], day: date, warnings: list[SnapshotWarning]
) -> pl.DataFrame:
    frames = []
    for repo in repos:
        records = _per_repository(
            partial(_listed, api.list_issues, client, owner=repo.owner, name=repo.name),
            repo=repo.full_name,
            endpoint="issues",
            warnings=warnings,
        )
        if records is not None:
            with _left_out(warnings, repo.full_name, "issue_records") as refused:
                frames.append(
                    tf.issues_frame(
                        records=records,
                        day=day,
                        repository_id=repo.id,
                        repository_full_name=repo.full_name,
                        refused=refused,
                    )
                )
    return tf.concat_frames(frames=frames, schema=tf.ISSUES_SCHEMA, key="issue_id")


@dataclass(frozen=True)
class _SeatOwner:
    """Who lists seats (an organization or an enterprise): how to list one's, and its rows."""

    kind: str  # as messages name it
    endpoint: str  # as its warnings name it
    records_endpoint: str  # as the warning naming its seats that cannot land names it
    listing: Callable[[ServiceClient, str], api.SeatListing]
    rows: Callable[[Sequence[Mapping[str, Any]], date, str], seats_tf.SeatRows]
    totals: Callable[[Mapping[str, int], Mapping[str, int], date], pl.DataFrame]  # totals, left out, day


_ORG_SEATS = _SeatOwner(
    "organization",
    "seats",
    "seat_records",
    lambda client, org: api.list_seats(client, org=org),
    lambda records, day, org: seats_tf.seats_frame(records=records, day=day, org=org),
    lambda totals, left_out, day: seats_tf.seat_totals_frame(totals=totals, day=day, left_out=left_out),
)
_ENTERPRISE_SEATS = _SeatOwner(
    "enterprise",
    "enterprise_seats",
    "enterprise_seat_records",
    lambda client, name: api.list_enterprise_seats(client, enterprise=name),
    lambda records, day, name: seats_tf.enterprise_seats_frame(records=records, day=day, enterprise=name),
    lambda totals, left_out, day: seats_tf.enterprise_seat_totals_frame(totals=totals, day=day, left_out=left_out),
)


def _collect_seats(
    client: ServiceClient,
    owner: _SeatOwner,
    *,
    names: tuple[str, ...],
    day: date,
    warnings: list[SnapshotWarning],
    listed: list[Listed],
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """Every organization's (or enterprise's) seats, unassigned seats and total; 403/404 is a
    warning for it, and so is each seat that cannot land (the listing's others land)."""
    empty = owner.rows([], day, "")
    frames, unassigned = [empty.seats], [empty.unassigned]
    totals: dict[str, int] = {}
    left_out: dict[str, int] = {}  # seats (holders) that could not land, counted beside the total
    for name in names:
        try:
            listing = owner.listing(client, name)
        except (NotFound, PermissionDenied) as exc:
            warnings.append(SnapshotWarning(name, owner.endpoint, exc.status, exc.message))
            continue
        except ServiceError as exc:
            raise SnapshotFailed(f"snapshot of {owner.kind} {name!r} failed listing its seats: {exc}") from exc
        rows = owner.rows(listing.seats, day, name)
        listed.append(Listed(owner.kind, name, listing, rows.drift))
        frames.append(rows.seats)
        unassigned.append(rows.unassigned)
        totals[name] = listing.total_seats
        left_out[name] = rows.left_out
        with _left_out(warnings, name, owner.records_endpoint) as refused:
            refused += rows.refused
    return pl.concat(frames), pl.concat(unassigned), owner.totals(totals, left_out, day)


@contextmanager
def _left_out(warnings: list[SnapshotWarning], subject: str, endpoint: str) -> Iterator[list[str]]:
    """Collect why records of one listing could not land; any at all make one warning for it.

    The listing answered 200 (status 200): the records no table can hold are left out, the
    others land, and this warning says how many and where, naming no person.
    """
    refused: list[str] = []
    yield refused
    if refused:
        warnings.append(SnapshotWarning(subject, endpoint, 200, f"{len(refused)} left out: " + "; ".join(refused)))


def _named(rec: Any) -> bool:
    """A repository record the snapshot can walk: an integer id and an owner/name."""
    return (
        isinstance(rec, Mapping)
        and isinstance(rec.get("id"), int)
        and not isinstance(rec.get("id"), bool)
        and isinstance(rec.get("full_name"), str)
    )


def _collect_stats(
    client: ServiceClient, *, repos: list[_Repo], settings: SnapshotSettings, warnings: list[SnapshotWarning]
) -> tuple[list[tuple[int, str, Mapping[str, Any]]], dict[str, int]]:
    batch = AdaptiveBatch(maximum=settings.graphql_batch_size, grow_after=settings.graphql_grow_after)
    nodes: list[tuple[int, str, Mapping[str, Any]]] = []
    counts = {"calls": 0, "requests": 0, "failures": 0}
    start = 0
    while start < len(repos):
        chunk = repos[start : start + batch.size]
        counts["calls"] += 1
        sent_before = client.stats.requests
        try:
            answer = api.fetch_repository_stats(client, repositories=[(r.owner, r.name) for r in chunk])
        except (ServerError, TransportFailed) as exc:
            counts["requests"] += client.stats.requests - sent_before
            if isinstance(exc, ServerError) and exc.status not in _CHOKE_STATUSES:
                raise
            counts["failures"] += 1
            if not batch.choked():
                raise
            continue
        counts["requests"] += client.stats.requests - sent_before
        # An answer with repositories NOT_FOUND is still a success: the batch size was fine.
        batch.succeeded()
        for repo, node in zip(chunk, answer, strict=True):
            if isinstance(node, api.NotResolved):
                warnings.append(SnapshotWarning(repo.full_name, "graphql", 404, node.message))
            else:
                nodes.append((repo.id, repo.full_name, node))
        start += len(chunk)
    return nodes, counts


def _per_repository(fetch: Callable[[], Any], *, repo: str, endpoint: str, warnings: list[SnapshotWarning]) -> Any:
    try:
        return fetch()
    except (NotFound, PermissionDenied) as exc:
        warnings.append(SnapshotWarning(repo, endpoint, exc.status, exc.message))
        return None


def _listed(fetch: Callable[..., Iterable[dict[str, Any]]], /, *args: Any, **kwargs: Any) -> list[dict[str, Any]]:
    """Every page of a listing, fetched now (so its errors are raised here)."""
    return list(fetch(*args, **kwargs))


def _org_level(fetch: Callable[[], Iterable[dict[str, Any]]], *, org: str, what: str) -> list[dict[str, Any]]:
    try:
        return list(fetch())
    except ServiceError as exc:
        raise SnapshotFailed(f"snapshot of organization {org!r} failed listing its {what}: {exc}") from exc


@dataclass(frozen=True)
class _Remaining:
    core: int | None
    graphql: int | None


def _counts(client: ServiceClient) -> tuple[int, int]:
    stats = client.stats
    return stats.requests, stats.not_modified


def _budget(client: ServiceClient) -> _Remaining:
    try:
        client.rate_limit()
    except NotFound:
        # A server with rate limiting switched off answers 404 here; the snapshot goes on.
        return _Remaining(core=None, graphql=None)
    budgets = client.budgets
    core, graphql = budgets.get("core"), budgets.get("graphql")
    return _Remaining(core=core.remaining if core else None, graphql=graphql.remaining if graphql else None)
