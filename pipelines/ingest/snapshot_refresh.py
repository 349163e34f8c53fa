"""A webhook refresh: the repositories that loaded deliveries name, taken again in today's snapshot.

A delivery says one repository changed. Taking the whole day again for it would fetch every
repository and list every member and seat; the refresh fetches the named repositories alone
(record, issues, counts) and replaces their rows of the day in one transaction, so the day's
other rows stay as they were taken. Which repositories comes from the warehouse (the deliveries
loaded since an instant), never from the run's config: a repository's name may be a login, and
Dagster's storage holds no person (docs/privacy.md). A day not taken yet is taken whole by the
caller: a refresh only mends a day.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import date, datetime
from typing import TYPE_CHECKING

from pipelines.ingest.forgotten import without_forgotten
from pipelines.ingest.snapshots import SnapshotResult, SnapshotSettings, collect_snapshot
from pipelines.service import forget_cached
from pipelines.warehouse.snapshots import (
    REPOSITORY_TABLES,
    day_rows,
    refresh_snapshot_repositories,
    repositories_named_since,
)

if TYPE_CHECKING:
    import duckdb

    from pipelines.service import ServiceClient
    from pipelines.warehouse.erasure import Forgotten

__all__ = ["Refresh", "refresh_snapshot"]


@dataclass(frozen=True)
class Refresh:
    """The repositories taken again (those named and in scope), and what their collection found
    (None: no named repository is in scope, so nothing was asked of the service)."""

    repositories: tuple[str, ...]
    result: SnapshotResult | None


def refresh_snapshot(
    client: ServiceClient,
    conn: duckdb.DuckDBPyConnection,
    *,
    settings: SnapshotSettings,
    day: date,
    since: datetime,
    forgotten: Forgotten | None = None,
) -> Refresh | None:
    """Take again, in `day`'s snapshot, the repositories named by the deliveries loaded at or after
    `since` that the settings cover; None when `day` has not been taken yet (take it whole)."""
    # Every taken day lists each organization's members (the members check holds it).
    if not day_rows(conn, day=day)["org_members"]:
        return None
    named = _in_scope(repositories_named_since(conn, since=since), settings)
    if not named:
        return Refresh(repositories=(), result=None)
    result = collect_snapshot(client, settings=replace(settings, repositories=named), day=day, repositories_only=True)
    frames = {table: result.frames[table] for table in REPOSITORY_TABLES}
    if forgotten is not None:
        frames = without_forgotten(frames, forgotten, schema="snapshots")
    refresh_snapshot_repositories(conn, day=day, frames=frames, names=named)
    if forgotten is not None and client.config.etag_cache is not None:
        forget_cached(client.config.etag_cache, forgotten.names_line)
    return Refresh(repositories=named, result=replace(result, frames=frames))


def _in_scope(names: Iterable[str], settings: SnapshotSettings) -> tuple[str, ...]:
    """The names a whole snapshot would take: an `owner/name` of SERVICE_REPOS when it is set,
    else of one of the organizations (the service's names are case-insensitive)."""
    listed = {name.casefold() for name in settings.repositories}
    orgs = {org.casefold() for org in settings.orgs}
    kept = []
    for full_name in names:
        owner, sep, name = full_name.partition("/")
        if not (sep and owner and name) or "/" in name:
            continue  # not a repository's name: nothing to fetch
        if full_name.casefold() in listed if listed else owner.casefold() in orgs:
            kept.append(full_name)
    return tuple(kept)
